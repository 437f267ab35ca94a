"""Runner processes started before the corpus loads: a runtime's start-up (a JVM, .NET, node: 0.3 to 1 s each)
then overlaps the harness's own (hashing and loading the corpus, making the plan) instead of following it.

Only the processes start early. The 'start' request is sent by the runner's session once the plan is ready
(runner_session.Session._start), so --start-timeout counts from there, as for any restart. The early processes
are registered like every runner (stop_all() kills them on SIGINT / SIGTERM); whatever no session took over is
killed by kill_all(), which the harness calls whether loading succeeded or failed (a bad corpus, a usage error).
Their stderr is held in memory until the session hands over out/<name>.stderr.log: out/ is only written once
loading succeeded, as when the runners started after it.
"""

import threading

from harness.runner_process import STDERR_LOG_CAP, Interrupted, RunnerProcess


class HeldLog:
    """A runner's stderr before its log file is open: kept (up to `cap` characters), then written to the log by
    attach(), and everything after it goes straight there."""

    def __init__(self, cap=STDERR_LOG_CAP):
        self._lock, self._held, self._left, self._log = threading.Lock(), [], cap, None

    def write(self, text):
        with self._lock:
            if self._log is not None:
                self._log.write(text)
            elif self._left > 0:
                self._held.append(text[:self._left])
                self._left -= len(text)

    @property
    def full(self):
        return self._log is not None and getattr(self._log, "full", False)

    def attach(self, log):
        with self._lock:
            for text in self._held:
                log.write(text)
            self._held, self._log = [], log


class Prestarted:
    """{runner name: its early process}; take() hands one to its session, kill_all() ends the rest."""

    def __init__(self, configs=()):
        self._procs = {}
        for config in configs:
            log = HeldLog()
            try:
                self._procs[config.name] = (RunnerProcess(config.argv, config.cwd, log), log)
            except (OSError, Interrupted):
                pass        # the session tries again, and reports what stops it as today

    def take(self, name, stderr_log):
        """The process started early for runner `name`, its stderr from now on in stderr_log; None if there is
        none (never started, or taken already)."""
        proc, log = self._procs.pop(name, (None, None))
        if proc is not None:
            log.attach(stderr_log)
        return proc

    def kill_all(self):
        """Kills every process no session took: all their process groups first, then each is reaped."""
        procs = [proc for proc, _ in self._procs.values()]
        self._procs.clear()
        for proc in procs:
            proc.kill_group()
        for proc in procs:
            proc.kill()
