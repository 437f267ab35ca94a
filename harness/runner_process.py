"""One runner child process: JSON lines in and out over pipes, with deadlines, and stderr kept apart.

Reads and writes happen on helper threads so that a runner that hangs (or stops reading) can never block the
harness: the session thread only waits on a queue with a deadline, then kills the process group.
"""

import collections
import os
import queue
import signal
import subprocess
import threading
import time

EOF = object()
TIMEOUT = object()
STDERR_TAIL = 30


class RunnerProcess:
    def __init__(self, argv, cwd, stderr_log=None):
        self.argv, self.cwd = list(argv), cwd
        self.stderr_tail = collections.deque(maxlen=STDERR_TAIL)
        self._stderr_log = stderr_log
        self._lines = queue.Queue()
        self._writes = queue.Queue()
        try:
            # A new session, so kill() reaches the runner's own children (a shell wrapper, a JVM launcher).
            self.proc = subprocess.Popen(self.argv, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.PIPE, start_new_session=True)
        except OSError as e:
            raise OSError(f"cannot start {self.argv}: {e}") from None
        self._threads = [threading.Thread(target=f, daemon=True)
                         for f in (self._read_stdout, self._read_stderr, self._write_stdin)]
        for t in self._threads:
            t.start()

    def _read_stdout(self):
        for line in self.proc.stdout:
            self._lines.put(line)
        self._lines.put(EOF)

    def _read_stderr(self):
        for line in self.proc.stderr:
            text = line.decode("utf-8", "replace").rstrip("\n")
            self.stderr_tail.append(text)
            if self._stderr_log:
                self._stderr_log.write(text + "\n")

    def _write_stdin(self):
        while True:
            data = self._writes.get()
            if data is None:
                break
            try:
                self.proc.stdin.write(data)
                self.proc.stdin.flush()
            except (BrokenPipeError, OSError, ValueError):
                break   # the runner is gone; the reader reports EOF
        try:
            self.proc.stdin.close()
        except (BrokenPipeError, OSError, ValueError):
            pass

    def send(self, data):
        self._writes.put(data)

    def read_line(self, deadline):
        """The next stdout line (bytes), EOF, or TIMEOUT once time.monotonic() passes deadline."""
        try:
            return self._lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            return TIMEOUT

    def exit_status(self, wait=2.0):
        """The exit status after EOF; waits briefly so the status and last stderr lines are in."""
        try:
            status = self.proc.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            self.kill()
            status = self.proc.wait()
        self._threads[1].join(timeout=wait)
        return status

    def stop(self, grace=5.0):
        """Closes stdin after the stop line; kills the runner if it does not exit in time."""
        self._writes.put(None)
        try:
            return self.proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            self.kill()
            return None
        finally:
            self._threads[1].join(timeout=grace)

    def kill(self):
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self._writes.put(None)
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        self._threads[1].join(timeout=2)

    def describe_exit(self, status):
        if status is None:
            return "still running"
        if status < 0:
            try:
                return f"killed by signal {signal.Signals(-status).name}"
            except ValueError:
                return f"killed by signal {-status}"
        return f"exited with status {status}"

    def stderr_text(self):
        return list(self.stderr_tail)
