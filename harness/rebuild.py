"""python3 -m harness report-journal: report.json and junit.xml rebuilt from out/verdicts.jsonl, for a run that was
killed before it wrote them (SIGKILL, a CI job's timeout). The verdicts go through verify's own steps (levels,
expected failures, report, JUnit, printed results); what the journal does not hold stays empty: the runners' start
answers (language, library, capabilities: null), restarts (0) and the producer x consumer matrix. The report is
always marked "incomplete", with the run's end as the journal recorded it."""

from pathlib import Path

from harness import corpus_cache, journal, ops as ops_mod, report, schemas, selection
from harness.judge import Outcome
from harness.options import UsageError
from harness.runner_config import resolve
from harness.runner_session import RunnerResult
from harness.verify_judge import judge_runs
from harness.verify_plan import load_expectations
from harness.verify_report import print_results, print_totals, write_reports

NOT_ENDED = "killed before the end"
REBUILT = 1     # exit status: a rebuilt report is incomplete (no start answers, no matrix), so the run does not pass


class JournalError(UsageError):
    pass


def report_journal(args, stdout, stderr):
    path = Path(args.journal)
    try:
        header, records, end = journal.read(path)
    except (OSError, UnicodeDecodeError) as e:
        raise JournalError(f"{path}: cannot read the journal: {e}") from None
    if header is None or header.get("journal") != journal.FORMAT or "selection" not in header:
        raise JournalError(f"{path}: no journal header this harness can rebuild from (expected a first line "
                           f'{{"journal": {journal.FORMAT}, ..., "selection": ...}} written by verify)')
    catalog, _ = corpus_cache.open_corpus(args.corpus, Path(args.cache_dir))
    if catalog.version != header["corpus_version"]:
        raise JournalError(f"{path}: the run used corpus {header['corpus_version']}, {args.corpus} is "
                           f"{catalog.version}")
    chosen = header["selection"]
    selected = catalog.vectors(selection.select(catalog, chosen["cases"], chosen["patterns"], chosen["families"],
                                                stderr))
    plan = ops_mod.plan(selected)
    if len(plan) != header["ops"]:
        raise JournalError(f"{path}: the run had {header['ops']} ops, this corpus selects {len(plan)}: not the "
                           f"corpus the run used")
    names = header["runners"]
    configs = resolve(names, args.runners_dir, header["commands"], header["expected_failures"])
    runs = [(c, RunnerResult(c.name)) for c in configs]
    by_name = {c.name: result for c, result in runs}
    keys = {op.key for op in plan}
    for line, r in enumerate(records, 2):
        key = (r.get("vector"), r.get("op"))
        if r.get("runner") not in by_name or key not in keys:
            raise JournalError(f"{path}:{line}: a verdict for {r.get('runner')} {key[0]} {key[1]}, which is not "
                               f"in the run's runners and selection")
        by_name[r["runner"]].outcomes[key] = Outcome(r["outcome"], r["detail"], r.get("diagnosis", []),
                                                     r.get("answer"), r.get("matched"))

    full_run = not chosen["cases"] and not chosen["patterns"] and not chosen["families"]
    complete = end == "complete" and len(records) == len(plan) * len(configs)
    final = judge_runs(runs, plan, load_expectations(configs, catalog), [], full_run and complete, catalog)
    summary = {"cases": chosen["cases"], "patterns": chosen["patterns"] + [f"family:{f}" for f in chosen["families"]],
               "full": full_run, "vectors": len(selected), "ops": len(plan)}
    incomplete = f"rebuilt from the journal; run ended: {end or NOT_ENDED}"
    rep = report.build(catalog, schemas.load("registry.json")["corpus_version"], summary, final, incomplete)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    write_reports(out, rep, final)
    print_results(final, args.max_diagnoses, False, stdout)
    print(f"reports: {out / 'report.json'}, {out / 'junit.xml'} (from {path})", file=stderr)
    print_totals(rep, stdout)
    return REBUILT
