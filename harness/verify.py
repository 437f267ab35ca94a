"""python3 -m harness verify, top to bottom. Four stages, each a module taking the previous one's output:

  verify_plan    the command line -> Plan: the corpus checked and loaded, the runners named, the vectors
                 selected, their ops and the runners' expected failures (--dump prints request lines instead)
  verify_run     Plan -> Runs: every runner's session over the ops; each outcome journaled as it comes, each
                 runner's verdicts made as its session ends
  verify_judge   Runs -> Judged: levels, expected failures and required capabilities applied; the matrix
  verify_report  Judged -> the exit status: report.json, junit.xml, the printed results and totals

Around them, what the whole run shares: the runners' processes started before the corpus loads (prestart.py),
the garbage collector's settings, the journal (out/verdicts.jsonl) from the first outcome to the end, and how the
process ends."""

import gc
import os
from pathlib import Path

from harness import fail_fast, journal, verify_judge, verify_plan, verify_report, verify_run, workers
from harness.prestart import Prestarted
from harness.runner_config import ConfigError, from_args

EXIT_WHEN_DONE = False      # set by harness/__main__.py: a finished verify run ends the process (_done)
RUN_GC_THRESHOLD = (1_000_000, 50, 1000)    # the collector's thresholds while runners run (verify)


def verify(args, stdout, stderr):
    # Loading makes millions of objects and no garbage: the collector is off until the corpus and the plan are
    # frozen below (a third of the load's CPU went to collections walking what was just loaded). cli._main turns
    # it back on if this returns or fails before.
    gc.disable()
    # The runners' processes start first, so their runtimes start up while the corpus loads; each session sends
    # 'start' once the plan is ready. Whatever loading raises, the early processes are killed before it is told.
    early = _prestart(args)
    thresholds = gc.get_threshold()
    try:
        return _verify(args, stdout, stderr, early)
    finally:
        gc.set_threshold(*thresholds)
        early.kill_all()


def _verify(args, stdout, stderr, early):
    plan = verify_plan.make(args, stdout, stderr)
    if plan is None:        # --dump printed a vector's request lines
        return 0
    _collect_seldom()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    # The last run's reports go now, not when this run's replace them: on ext4 a rename over a file, or a rewrite
    # of a truncated one, makes the new data be written out at once (~0.03 s at the end of a full run, its reports
    # ~110 MB), a new file's in the background; and a run killed before its reports leaves its journal
    # (report-journal rebuilds them), not an older run's report that disagrees with it.
    for name in ("report.json", "junit.xml", "verdicts.jsonl"):
        (out / name).unlink(missing_ok=True)
    log = journal.Journal(out / "verdicts.jsonl", plan.catalog.version, [c.name for c in plan.configs],
                          len(plan.ops), plan.journal_header)
    stopped = None
    try:
        on_outcome = (fail_fast.watch(log.add, plan.entries, plan.catalog.scope, stdout) if args.fail_fast
                      else log.add)
        runs = verify_run.run(plan, args, out, on_outcome, early, stderr)
        stopped = runs.incomplete
        judged = verify_judge.judge(plan, runs, args, out, stderr)
        stopped = judged.incomplete
        code = verify_report.report_run(plan, judged, args, out, stdout, stderr)
    finally:
        log.close(stopped or "complete")
    return _done(code, early, stdout, stderr)


def _prestart(args):
    """The named runners' processes, started now (harness/prestart.py). None are when the command line does not
    run runners (--dump, no --runners) or names them wrongly (the error is reported where it always was, after
    the corpus checks), nor with --workers (a forked worker starts its own)."""
    if args.dump or not args.runners:
        return Prestarted()
    try:
        configs = from_args(args)
    except ConfigError:
        return Prestarted()
    if args.workers and workers.usable(len(configs)):
        return Prestarted()
    return Prestarted(configs)


def _collect_seldom():
    # The corpus and the plan live as long as the run: the collector need not walk them again and again (each
    # full collection did, while a run's outcomes, verdicts and report records were made).
    gc.freeze()
    # What the run makes lives until the reports are written, and its garbage is freed by reference counts: the
    # collector runs seldom (the defaults walked the run's young objects ~780 times, 0.1 s of a full run's CPU; a
    # full run now makes too few objects for one collection).
    gc.set_threshold(*RUN_GC_THRESHOLD)
    gc.enable()


def _done(code, early, stdout, stderr):
    """A verify run's exit status. Under `python3 -m harness` (EXIT_WHEN_DONE) the process ends here, its output
    flushed (the reports and the journal are closed by now), without returning: the run's objects (the plan, the
    verdicts, the report's records: millions) are then not freed one by one, which took 0.1 s of a full run."""
    if EXIT_WHEN_DONE:
        early.kill_all()
        stdout.flush()
        stderr.flush()
        os._exit(code)
    return code
