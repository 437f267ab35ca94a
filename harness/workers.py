"""--workers: each runner's session in a process of its own, so judging uses every core (in one process every
runner's answers are parsed and judged under one GIL). Not the default: on 2 cores the forked heaps' copy-on-write
faults and the pickled outcomes cost more than the GIL once the runners got fast (harness/cli.py says the figures).

A worker is forked with the plan, runs one Session on a large-stack thread, and sends its outcomes back in
batches as they come in; the parent files them into the runner's RunnerResult and calls on_outcome (the
journal), so reports, journal and verdicts are the same as in one process. stop_all() in the parent (a signal,
another runner's harness error) is passed on as SIGTERM: the worker's inherited handler kills its runner and
the worker sends what it has.
"""

import gc
import os
import signal
import threading
import time
import traceback

from harness import threads
from harness.runner_process import STOP
from harness.runner_session import RunnerResult

BATCH = 256         # outcomes per message at most
BATCH_S = 0.05      # and at most this old: the journal stays current
_FIELDS = ("info", "start_error", "restarts", "abandoned")


class WorkerError(Exception):
    pass


def run_all(names, make_session, plan, results, on_outcome=None, on_done=None):
    """Runs make_session(i).run(plan, result) for each runner i in a forked process, filling results[i];
    on_done(i) once results[i] is complete. Returns the first error (a WorkerError with the worker's traceback) or
    None."""
    import multiprocessing      # here: a run without --workers does not import it (3 ms with its own imports)
    index = {id(op): n for n, op in enumerate(plan)}    # outcomes cross as (op's index in plan, Outcome)
    ctx = multiprocessing.get_context("fork")
    count = min(len(names), os.cpu_count() or 1)
    groups = [list(range(len(names)))[w::count] for w in range(count)]    # runners round-robin over the cores
    workers, errors = [], []
    # Objects that exist now (the corpus, the plan) go to a permanent generation: a worker's collector then
    # never walks them, which would write to every page of the copied heap (copy-on-write for all of it); nor
    # does the parent's, while 150,000 outcomes come in.
    gc.freeze()
    for group in groups:
        receive, send = ctx.Pipe(duplex=False)
        proc = ctx.Process(target=_work, args=(make_session, group, plan, index, send), daemon=True)
        proc.start()
        send.close()
        workers.append((proc, receive, group))

    def collect(w):
        proc, receive, group = workers[w]
        done = set()
        try:
            while True:
                kind, i, payload = receive.recv()
                if kind == "outcomes":
                    outcomes, runner = results[i].outcomes, names[i]
                    for n, outcome in payload:
                        op = plan[n]
                        outcomes[op.key] = outcome
                        if on_outcome:
                            on_outcome(runner, op, outcome)
                elif kind == "done":
                    for name, value in payload.items():
                        setattr(results[i], name, value)
                    done.add(i)
                    if on_done:
                        try:
                            on_done(i)
                        except Exception:   # noqa: BLE001 - a harness bug: reported, and the pipe still read
                            errors.append(WorkerError(f"{names[i]}: {traceback.format_exc()}"))
                else:
                    errors.append(WorkerError(f"{names[i]}: {payload}"))
        except EOFError:
            pass
        proc.join()
        if len(done) < len(group) and not errors and not STOP.is_set():
            errors.append(WorkerError(f"{', '.join(names[i] for i in group)}: worker process ended without a "
                                      f"result (exit {proc.exitcode})"))

    collectors = threads.start([lambda w=w: collect(w) for w in range(len(workers))])
    told = False
    while any(t.is_alive() for t in collectors):
        if not told and (STOP.is_set() or errors):
            told = True     # a signal or a failed worker: every worker stops its runner and sends what it has
            for proc, _, _ in workers:
                if proc.is_alive():
                    os.kill(proc.pid, signal.SIGTERM)
        time.sleep(0.05)
    return errors[0] if errors else None


def _work(make_session, group, plan, index, send):
    """In a forked worker: run the sessions of runners `group` (a thread each), stream their outcomes, then each
    result's other fields."""
    status, sessions, lock = 0, [], threading.Lock()
    try:
        def run(i):
            result, batch, last = RunnerResult(""), [], [time.monotonic()]

            def on_outcome(_name, op, outcome):
                batch.append((index[id(op)], outcome))
                if len(batch) >= BATCH or time.monotonic() - last[0] >= BATCH_S:
                    with lock:
                        send.send(("outcomes", i, batch[:]))
                    batch.clear()
                    last[0] = time.monotonic()

            session = make_session(i, on_outcome)
            sessions.append(session)
            session.run(plan, result)
            with lock:
                if batch:
                    send.send(("outcomes", i, batch))
                send.send(("done", i, {name: getattr(result, name) for name in _FIELDS}))

        failures = []

        def guarded(i):
            try:
                run(i)
            except BaseException:   # a harness bug: the parent reports it with this traceback
                failures.append((i, traceback.format_exc()))

        threads.run_all([lambda i=i: guarded(i) for i in group])
        for i, text in failures[:1]:
            status = 1
            with lock:
                send.send(("error", i, text))
    finally:
        send.close()
        for session in sessions:
            if session.stderr_log:
                session.stderr_log.close()
        # Not sys.exit: the parent's buffers, atexit handlers and threads were copied by fork and are not ours.
        os._exit(status)


def usable(count):
    """Workers pay off with two or more runners on two or more cores, and need fork."""
    import multiprocessing
    return count > 1 and (os.cpu_count() or 1) > 1 and "fork" in multiprocessing.get_all_start_methods()
