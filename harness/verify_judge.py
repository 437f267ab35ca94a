"""verify, stage 3 of 4 (harness/verify.py): a Plan and its Runs -> Judged. Each runner's verdicts get the levels,
expected failures and --require capabilities applied, with advice on its expected-failures list; then, for a
complete run of more than one runner, the producer x consumer matrix (harness/matrix.py) has each runner decode
the bytes the others wrote."""

from dataclasses import dataclass

from harness import capabilities, expectations, incomplete, matrix, results


@dataclass
class Judged:
    final: list             # [(config, RunnerResult, [Verdict], Advice)] in the order the runners were named
    grid: object            # the producer x consumer matrix.Matrix, or None
    incomplete: str         # why the run ended early, or None


def judge(plan, runs, args, out, stderr):
    complete = runs.incomplete is None
    final = judge_runs(runs.runs, plan.ops, plan.entries, plan.required, plan.full_run and complete, plan.catalog)
    stopped, grid = runs.incomplete, None
    if len(final) > 1 and not args.no_matrix and complete:
        try:
            grid = matrix.run(final, plan.ops, plan.catalog.version, args.timeout, runs.start_timeout, args.window,
                              out, args.max_faults)
        except Exception as e:      # noqa: BLE001 - the per-runner verdicts are still written
            stopped = incomplete.interrupted() or incomplete.internal_error(e, stderr)
        stopped = stopped or incomplete.interrupted()
        if stopped:
            grid = None
    return Judged(final, grid, stopped)


def judge_runs(runs, plan, entries, required, stale_checked, catalog):
    """[(config, RunnerResult)] -> [(config, result, [Verdict], Advice)]: levels and expectations applied.
    stale_checked: a complete full run, where an entry matching no verdict is stale."""
    # Stale only where the loaded corpus holds an entry's scope: a foreign or partial corpus gets a note.
    corpus_scope = expectations.CorpusScope(catalog)
    final = []
    for config, result in runs:
        result.unmet = capabilities.unmet(required, result.info) if result.info else []
        if result.verdicts is not None:     # built and marked when the session ended (verify_run's finish)
            verdicts = result.verdicts
            advice = expectations.advise(entries[config.name], verdicts, stale_checked, corpus_scope, result.counts)
        else:
            verdicts = results.build(config.name, plan, result.outcomes)
            advice = expectations.apply(entries[config.name], verdicts, stale_checked, catalog.scope, corpus_scope)
        final.append((config, result, verdicts, advice))
    return final
