"""One runner child process: JSON lines in and out over pipes, with deadlines, and stderr kept apart.

Reads and writes happen on helper threads so that a runner that hangs (or stops reading) can never block the
harness: the session thread only waits on a queue with a deadline, then kills the process group.

Memory stays bounded whatever the runner sends (runners/PROTOCOL.md, "Limits"): stdout is read in chunks and a
line longer than MAX_LINE is not kept (the reader hands over a LineTooLong instead and reads no further); at
most QUEUED_LINES batches of lines (each the complete lines of one CHUNK read) wait unread; stderr keeps a tail of
STDERR_TAIL lines of at most STDERR_LINE bytes each, and the log file stops growing at StderrLog's cap.

Every runner is started in its own process group (a new session) and registered while it lives, so stop_all()
(SIGINT / SIGTERM) can kill every runner and its children at once.
"""

import codecs
import collections
import os
import queue
import signal
import subprocess
import threading
import time

from harness.text import clean, clean_bytes

EOF = object()
TIMEOUT = object()
MAX_LINE = 16 << 20         # bytes per stdout line, newline excluded
QUEUED_LINES = 4            # batches of lines read ahead of the session at most (one per CHUNK read)
CHUNK = 1 << 16
STDERR_TAIL = 30            # lines kept for crash reports
STDERR_LINE = 2000          # bytes kept per tail line
STDERR_LOG_CAP = 16 << 20   # bytes of stderr written to out/<name>.stderr.log per run

STOP = threading.Event()    # set by stop_all(): no runner starts any more
_live, _live_lock = set(), threading.Lock()


class Interrupted(Exception):
    """The run is being stopped (SIGINT / SIGTERM): no more runners, no more verdicts."""


class LineTooLong:
    def __init__(self, size):
        self.size = size

    def describe(self):
        return f"stdout line longer than {MAX_LINE} bytes (the protocol's limit); read {self.size} bytes of it"


def stop_all():
    """Kills every live runner's process group; runners started from now on are refused (Interrupted)."""
    STOP.set()
    with _live_lock:
        procs = list(_live)
    for p in procs:
        p.kill_group()


class StderrLog:
    """out/<name>.stderr.log: what runners wrote on stderr, up to `cap` bytes, then one line saying so."""

    def __init__(self, path, mode="w", cap=STDERR_LOG_CAP):
        self._f = open(path, mode, encoding="utf-8", errors="replace")
        self._left, self._lock, self._noted = cap, threading.Lock(), False
        self.cap = cap

    def write(self, text):
        with self._lock:
            if self._left <= 0:
                if not self._noted:
                    self._noted = True
                    self._f.write(f"\n[harness: stderr log capped at {self.cap} bytes; the rest is not kept]\n")
                return
            text = text[:self._left]
            self._left -= len(text.encode("utf-8", "replace"))
            self._f.write(text)

    @property
    def full(self):
        return self._noted

    def flush(self):
        with self._lock:
            self._f.flush()

    def close(self):
        self._f.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class RunnerProcess:
    def __init__(self, argv, cwd, stderr_log=None):
        if STOP.is_set():
            raise Interrupted()
        self.argv, self.cwd = list(argv), cwd
        self.stderr_tail = collections.deque(maxlen=STDERR_TAIL)
        self._stderr_log = stderr_log
        self._lines = queue.Queue(maxsize=QUEUED_LINES)     # batches of lines, each from one read of stdout
        self._ready = collections.deque()                   # the batch the session is reading
        self._writes = queue.Queue()
        self._closed = threading.Event()
        try:
            # A new session, so kill() reaches the runner's own children (a shell wrapper, a JVM launcher).
            self.proc = subprocess.Popen(self.argv, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.PIPE, start_new_session=True)
        except OSError as e:
            raise OSError(f"cannot start {self.argv}: {e}") from None
        with _live_lock:
            _live.add(self)
        if STOP.is_set():           # stop_all() ran between the check above and the registration
            self.kill_group()
        self._threads = [threading.Thread(target=f, daemon=True)
                         for f in (self._read_stdout, self._read_stderr, self._write_stdin)]
        for t in self._threads:
            t.start()

    def _put(self, item):
        # Blocks while the session has QUEUED_LINES unread batches; gives up once the process is closed.
        while not self._closed.is_set():
            try:
                self._lines.put(item, timeout=0.2)
                return True
            except queue.Full:
                pass
        return False

    def _read_stdout(self):
        # The complete lines of each chunk are handed over as one batch: one queue hand-off per read, not per line.
        read, line = self.proc.stdout.read1, bytearray()
        while True:
            chunk = read(CHUNK)
            if not chunk:
                break
            start, batch = 0, []
            while True:
                end = chunk.find(b"\n", start)
                if end < 0:
                    line += chunk[start:]
                    break
                if line:
                    line += chunk[start:end + 1]
                    item = bytes(line)
                    line.clear()
                else:
                    item = chunk[start:end + 1]
                if len(item) > MAX_LINE + 1:
                    self._put(batch + [LineTooLong(len(item) - 1)])
                    return
                batch.append(item)
                start = end + 1
            if batch and not self._put(batch):
                return
            if len(line) > MAX_LINE:
                self._put([LineTooLong(len(line))])
                return                  # read no further: the session kills the runner for this
        self._put(([bytes(line)] if line else []) + [EOF])

    def _read_stderr(self):
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        read, line, dropped = self.proc.stderr.read1, bytearray(), 0
        while True:
            chunk = read(CHUNK)
            if not chunk:
                break
            if self._stderr_log and not getattr(self._stderr_log, "full", False):
                self._stderr_log.write(decoder.decode(chunk))
            start = 0
            while True:
                end = chunk.find(b"\n", start)
                piece = chunk[start:] if end < 0 else chunk[start:end]
                room = STDERR_LINE - len(line)
                line += piece[:max(room, 0)]
                dropped += max(len(piece) - max(room, 0), 0)
                if end < 0:
                    break
                self._tail(line, dropped)
                line, dropped, start = bytearray(), 0, end + 1
        if line or dropped:
            self._tail(line, dropped)

    def _tail(self, line, dropped):
        text = clean_bytes(bytes(line), STDERR_LINE)
        self.stderr_tail.append(text + (f"... (truncated {dropped} bytes)" if dropped else ""))

    def _write_stdin(self):
        done = False
        while not done:
            batch = [self._writes.get()]
            while batch[-1] is not None:    # what else is queued goes out in the same write: one system call
                try:
                    batch.append(self._writes.get_nowait())
                except queue.Empty:
                    break
            if batch[-1] is None:
                done = True
                batch.pop()
            try:
                self.proc.stdin.write(b"".join(batch))
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
        """The next stdout line (bytes), LineTooLong, EOF, or TIMEOUT once time.monotonic() passes deadline."""
        if not self._ready:
            try:
                self._ready.extend(self._lines.get(timeout=max(0.0, deadline - time.monotonic())))
            except queue.Empty:
                return TIMEOUT
        return self._ready.popleft()

    def exit_status(self, wait=2.0):
        """The exit status after EOF; waits briefly so the status and last stderr lines are in."""
        try:
            status = self.proc.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            self.kill()
            status = self.proc.wait()
        self._threads[1].join(timeout=wait)
        self._unregister()
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
            self._unregister()

    def kill_group(self):
        """SIGKILL to the runner's whole process group; does not wait (safe from a signal handler)."""
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass

    def kill(self):
        self.kill_group()
        self._closed.set()
        self._writes.put(None)
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        self._threads[1].join(timeout=2)
        self._unregister()

    def _unregister(self):
        self._closed.set()
        with _live_lock:
            _live.discard(self)

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


def clean_line(line, limit=200):
    """A stdout line (bytes) as a short printable text for a diagnosis."""
    return clean_bytes(line.rstrip(b"\n"), limit) if isinstance(line, bytes) else clean(str(line), limit)
