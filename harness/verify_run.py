"""verify, stage 2 of 4 (harness/verify.py): a Plan -> Runs. One session per runner over the plan's ops, on a
thread each (or a forked worker each, --workers); every outcome goes to the journal as it comes. As each session
ends, while slower runners still run, its outcomes become Verdicts with their expected failures marked, and
their report.json records and junit.xml suite are made (the last stage only writes them)."""

import gc
from dataclasses import dataclass

from harness import expectations, incomplete, junit, report, results, schemas, threads, workers
from harness.runner_process import StderrLog, stop_all
from harness.runner_session import RunnerResult, Session


@dataclass
class Runs:
    runs: list              # [(config, RunnerResult)] in the order the runners were named
    incomplete: str         # why the run ended early (a signal, a harness bug), or None
    start_timeout: float    # the seconds a runner had to answer 'start' (the matrix's sessions get the same)


def run(plan, args, out, on_outcome, early, stderr):
    """Runs of every runner over plan.ops. on_outcome(runner name, op, Outcome) gets each outcome as it comes
    (the journal); early: the runners' processes started before the plan was made (harness/prestart.py)."""
    start_timeout = args.start_timeout or 3 * args.timeout
    shared, shared_junit = report.shared_pieces(), junit.shared_pieces()

    def finish(config, result):
        # A runner's verdicts, report records and JUnit suite are made as soon as its session ends, while slower
        # runners still run (on a core that is free by then), not all after the last one. judge_runs adds the
        # advice.
        verdicts = results.build(config.name, plan.ops, result.outcomes)
        expectations.mark(plan.entries[config.name], verdicts, plan.catalog.scope)
        result.records = report.records(verdicts, shared)
        result.junit = junit.suite(config.name, verdicts, shared_junit)
        result.verdicts, result.counts = verdicts, results.counts(verdicts)
        # They live until the reports are written: frozen like the plan, so that the full collections while
        # the other runners still run do not walk them again (4 full collections walked up to 230,000 such
        # objects, 0.3 s of a run's CPU). Garbage made of them is still freed when its count drops to zero.
        gc.freeze()

    runs, error = run_all(plan.configs, plan.ops, plan.catalog.version, args, start_timeout, out, on_outcome, finish,
                          early)
    return Runs(runs, incomplete.interrupted() or (error and incomplete.internal_error(error, stderr)), start_timeout)


def run_all(configs, plan, corpus_version, args, start_timeout, out, on_outcome=None, finish=None, early=None):
    """One thread per runner; ([(config, RunnerResult)] in the order the runners were named, the first harness
    error or None). A result holds the outcomes gathered so far when its session failed or was interrupted.
    finish(config, result) is called once a runner's session has ended, while the others may still run.
    early: the runners' processes started before the plan was made (Prestarted), used for their first start."""
    results_ = [RunnerResult(c.name) for c in configs]
    logs = [StderrLog(out / f"{c.name}.stderr.log") for c in configs]

    errors = []

    def finished(i):
        if finish:
            finish(configs[i], results_[i])

    def work(i):
        try:
            session = Session(configs[i], corpus_version, args.timeout, start_timeout, args.window, logs[i],
                              args.max_faults, on_outcome)
            if early is not None:
                session.prestarted = early.take(configs[i].name, logs[i])
            session.run(plan, results_[i])
            finished(i)
        except BaseException as e:     # a harness bug: report it after the other runners finish
            errors.append(e)
            stop_all()                 # the run is incomplete anyway: do not wait for the other runners

    # Compile the response checks once, before the threads (or forked workers) share them.
    for cmd in ("start", "encode", "decode"):
        schemas.fast_check("protocol.schema.json", f"/$defs/{cmd}_response")

    if args.workers and workers.usable(len(configs)):
        def make_session(i, send_outcome):
            return Session(configs[i], corpus_version, args.timeout, start_timeout, args.window, logs[i],
                           args.max_faults, send_outcome)
        error = workers.run_all([c.name for c in configs], make_session, plan, results_, on_outcome, finished)
        if error:
            errors.append(error)
    else:
        threads.run_all([lambda i=i: work(i) for i in range(len(configs))])
    for log in logs:
        log.close()
    return list(zip(configs, results_)), (errors[0] if errors else None)
