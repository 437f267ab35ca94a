"""verify, stage 4 of 4 (harness/verify.py): a Plan and its Judged verdicts -> the exit status. report.json and
junit.xml written, each runner's results printed (the worst failures with full diagnoses, grouped verdicts,
expected-failures advice, a closing line), the matrix, the totals; a complete full run's prepared plan kept for
the next run (harness/plan_cache.py).

Exit status: 0 when nothing fails the run, 1 when something does or when nothing was checked (every verdict
'unclaimed', or none at all) without --allow-nothing-checked; an incomplete run's is incomplete.exit_status()."""

from harness import incomplete, junit, matrix, plan_cache, report, results
from harness.text import shown_path

MAX_FAILURE_LINES = 200      # per runner, one line each


def report_run(plan, judged, args, out, stdout, stderr):
    stopped, grid = judged.incomplete, judged.grid
    rep = report.build(plan.catalog, plan.registry_version, plan.selection, judged.final, stopped)
    if grid:
        matrix.add_to_report(rep, grid)
    write_reports(out, rep, judged.final)
    print_results(judged.final, args.max_diagnoses, plan.full_run and not stopped, stdout)
    if grid:
        matrix.print_matrix(grid, args.max_diagnoses, lambda text: print(text, file=stdout))
    print(f"reports: {out / 'report.json'}, {out / 'junit.xml'}, {out / 'verdicts.jsonl'}", file=stderr)
    totals = print_totals(rep, stdout, args.allow_nothing_checked)
    if plan.to_store and not stopped:
        plan_cache.store(plan.cache_dir, plan.catalog, plan.selected, plan.to_store)
    if stopped:
        return incomplete.exit_status()
    return 0 if totals["failed"] == 0 and (totals["checked"] or args.allow_nothing_checked) else 1


def write_reports(out, rep, final):
    report.write(out / "report.json", rep)
    junit.write(out / "junit.xml", [(config.name, verdicts, getattr(result, "junit", None))
                                    for config, result, verdicts, _ in final])


def print_totals(rep, stdout, allow_nothing_checked=False):
    """The INCOMPLETE line (if any) and the closing totals line; returns the totals. The line ends 'NOTHING CHECKED'
    when a complete run checked nothing (every verdict unclaimed, or none at all)."""
    totals = rep["totals"]
    if rep.get("incomplete"):
        print(f"INCOMPLETE: {rep['incomplete']['reason']}; {rep['incomplete']['missing']} verdicts missing "
              f"(report.json holds the ones gathered)", file=stdout)
    coarse = f" ({totals['coarse']} coarse)" if totals.get("coarse") else ""
    unclaimed = f", {totals['unclaimed']} unclaimed" if totals.get("unclaimed") else ""
    nothing = ""
    if not rep.get("incomplete") and not totals.get("checked"):
        why = "every verdict unclaimed" if totals.get("unclaimed") else "no verdict at all"
        nothing = (f": NOTHING CHECKED ({why}); exit status 0 by --allow-nothing-checked" if allow_nothing_checked
                   else f": NOTHING CHECKED ({why}), exit status 1 (--allow-nothing-checked to accept it)")
    print(f"{totals['passed']} passed{coarse}, {totals['failed']} failed{unclaimed}{nothing}", file=stdout)
    return totals


# Full diagnoses go to the worst verdicts first; within one kind, in vector order.
SEVERITY = ("crash", "fail", "protocol-error", "timeout", "xpass")
GROUPED = ("unclaimed", "skip", "abandoned")     # one line per reason, with a count: the same cause, many ops
EXAMPLES = 3                        # ids shown on a grouped line


def print_results(final, max_diagnoses, full_run, stdout):
    def say(text=""):
        print(text, file=stdout)

    for config, result, verdicts, advice in final:
        # The counts say which kinds there are: most runs have no failing or grouped verdict to look for.
        c = results.counts_of(result, verdicts)
        failing = [v for v in verdicts if v.verdict in results.FAILING] if any(c[k] for k in results.FAILING) else []
        if result.start_error:
            say(f"{config.name}: runner did not start: {result.start_error.splitlines()[0]}")
            for line in result.start_error.splitlines()[1:]:
                say(f"    {line}")
            say(f"CRASH {config.name}: all {len(failing)} selected verdicts (the runner did not start)")
            failing = []
        for requirement in result.unmet:
            key, value = requirement.split("=", 1)
            say(f"UNMET {config.name}: --require {requirement}: the runner does not claim {key} '{value}' in its "
                f"start answer's capabilities")
        if any(c[k] for k in GROUPED) and not result.start_error:
            _print_groups(config.name, [v for v in verdicts if v.verdict in GROUPED], say)
        ranked = sorted((v for v in failing if v.verdict not in GROUPED),
                        key=lambda v: SEVERITY.index(v.verdict) if v.verdict in SEVERITY else len(SEVERITY))
        shown = 0
        for v in ranked[:MAX_FAILURE_LINES]:
            say(f"{v.verdict.upper()} {config.name} {v.vector} {v.op}: {v.detail}")
            if v.verdict == "xpass":
                say(f"    listed as expected to fail ({v.expectation}), but passes")
            elif shown < max_diagnoses:
                shown += 1
                for line in v.diagnosis:
                    say(f"    {line}")
        if len(ranked) > MAX_FAILURE_LINES:
            say(f"... and {len(ranked) - MAX_FAILURE_LINES} more failing verdicts for {config.name} "
                f"(see report.json)")
        for e in advice.stale:
            say(f"STALE {config.name} {shown_path(e.where)}: matches no verdict: {e.text}")
        if advice.unchecked:
            e = advice.unchecked[0]
            more = f" and {len(advice.unchecked) - 1} more" if len(advice.unchecked) > 1 else ""
            say(f"NOTE {config.name}: {len(advice.unchecked)} expected-failure entr"
                f"{'ies' if len(advice.unchecked) > 1 else 'y'} name no vector of this corpus (a foreign or "
                f"partial corpus), so not checked as stale: {shown_path(e.where)}: {e.text}{more}")
        if advice.add or advice.remove:
            scope = "" if full_run else " (for this selection only)"
            say(f"{config.name}: to make {shown_path(config.expected_failures)} match this run{scope}:")
            edits = [f"  remove: {line}" for line in advice.remove] + [f"  add:    {line}" for line in advice.add]
            for line in edits[:MAX_FAILURE_LINES]:
                say(line)
            if len(edits) > MAX_FAILURE_LINES:
                say(f"  ... and {len(edits) - MAX_FAILURE_LINES} more (all of them: report.json, runners[].expectations)")
    for config, result, verdicts, advice in final:
        say(closing_line(config, result, verdicts, advice))


def _print_groups(name, verdicts, say):
    """One line per (verdict, reason): 'SKIP x: 12 ops runner skipped: why (e.g. id op, ...)'."""
    groups = {}
    for v in verdicts:
        groups.setdefault((v.verdict, v.detail), []).append(v)
    for (verdict, detail), group in sorted(groups.items(), key=lambda g: (GROUPED.index(g[0][0]), -len(g[1]), g[0])):
        examples = ", ".join(f"{v.vector} {v.op}" for v in group[:EXAMPLES])
        more = ", ..." if len(group) > EXAMPLES else ""
        say(f"{verdict.upper()} {name}: {len(group)} op{'s' if len(group) != 1 else ''} {detail} "
            f"(e.g. {examples}{more})")


def closing_line(config, result, verdicts, advice):
    """'name (language, library version): 10 pass, 0 fail, 4 unclaimed; 1 restart'."""
    c = results.counts_of(result, verdicts)
    parts = [f"{c[k]} {k}" for k in results.ORDER if c[k] or k in ("pass", "fail")]
    if advice.stale:
        parts.append(f"{len(advice.stale)} stale expectation{'s' if len(advice.stale) > 1 else ''}")
    if result.unmet:
        parts.append(f"{len(result.unmet)} unmet requirement{'s' if len(result.unmet) > 1 else ''}")
    who = config.name
    if result.info:
        who += f" ({result.info['language']}, {result.info['library']} {result.info['library_version']})"
    restarts = f"; {result.restarts} restart{'s' if result.restarts != 1 else ''}" if result.restarts else ""
    if result.abandoned:
        restarts += f"; {result.abandoned}"
    return f"{who}: {', '.join(parts)}{restarts}"
