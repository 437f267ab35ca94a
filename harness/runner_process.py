"""One runner child process: JSON lines in and out over pipes, with deadlines, and stderr kept apart.

The session's own thread writes the requests and reads the answers, without a thread of its own for either: both
pipes are non-blocking, and read_line() waits in poll() until an answer line is in, writing what is still owed to
the runner's stdin meanwhile, or the deadline passes. A runner that hangs or stops reading can never block the
harness: a write takes what the pipe has room for, the rest waits for poll() to say there is room. (A thread per
pipe, as before, cost a GIL hand-off and a queue per batch of lines: their threads took 1.8 s of the harness's 9 s of
CPU in a 7-runner run.) Only stderr has a thread, which mostly sleeps.

Memory stays bounded whatever the runner sends (runners/PROTOCOL.md, "Limits"): stdout is read in CHUNK reads, only
when the lines of the previous read are all taken (QUEUED_LINES), and a line longer than MAX_LINE is not kept (the
read hands over a LineTooLong instead and reads no further); stderr keeps a tail of STDERR_TAIL lines of at most
STDERR_LINE bytes each, and the log file stops growing at StderrLog's cap.

Every runner is started in its own process group (a new session) and registered while it lives, so stop_all()
(SIGINT / SIGTERM) can kill every runner and its children at once.
"""

import codecs
import collections
import fcntl
import os
import select
import signal
import subprocess
import threading
import time

from harness.text import clean, clean_bytes

EOF = object()
TIMEOUT = object()
MAX_LINE = 16 << 20         # bytes per stdout line, newline excluded
QUEUED_LINES = 1            # reads of stdout whose lines wait for the session: it reads again once it took them
CHUNK = 1 << 18             # bytes per read of stdout
PIPE_SIZE = 1 << 20         # asked of both pipes (Linux's default maximum for an unprivileged process)
F_SETPIPE_SZ = getattr(fcntl, "F_SETPIPE_SZ", 1031)
STDERR_CHUNK = 1 << 16
IOV_MAX = 1024              # buffers per writev()
WRITE_BATCH = 16            # requests waiting to be written that are written before the session waits
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
        self.ready = collections.deque()        # the lines of the last read not yet taken (read_line(), or the
        #                                         session's loop over the lines that pass as they are)
        self._partial = bytearray()             # the start of a line whose end is not read yet
        self._eof = False                       # stdout ended (or a LineTooLong ended the reading)
        self._owed = collections.deque()        # what send() was given and is not written yet (bytes, memoryviews)
        self._stdin_open = True
        try:
            # A new session, so kill() reaches the runner's own children (a shell wrapper, a JVM launcher).
            self.proc = subprocess.Popen(self.argv, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.PIPE, start_new_session=True)
        except OSError as e:
            raise OSError(f"cannot start {self.argv}: {e}") from None
        self._in, self._out = self.proc.stdin.fileno(), self.proc.stdout.fileno()
        for fd in (self._in, self._out):
            os.set_blocking(fd, False)
            try:    # a larger pipe: fewer, larger writes and reads, fewer wake-ups on both sides
                fcntl.fcntl(fd, F_SETPIPE_SZ, PIPE_SIZE)
            except OSError:
                pass
        self._poll = select.poll()
        self._poll.register(self._out, select.POLLIN)
        with _live_lock:
            _live.add(self)
        if STOP.is_set():           # stop_all() ran between the check above and the registration
            self.kill_group()
        self._threads = [threading.Thread(target=self._read_stderr, daemon=True)]
        self._threads[0].start()

    def _wait(self, deadline, for_line=True):
        """Polls until a read of stdout came in (for_line; its lines are in ready) or nothing is owed any more (not
        for_line: what comes in meanwhile is read and dropped), writing what is owed as the pipe takes it. False when
        the deadline (time.monotonic(); None: none) passed first."""
        while True:
            if self._owed:
                self._write_owed()
            writing = bool(self._owed) and self._stdin_open
            if not writing and not for_line:
                return True
            if writing:
                self._poll.register(self._in, select.POLLOUT)
            events = self._poll.poll(None if deadline is None else max(0.0, deadline - time.monotonic()) * 1000)
            if writing:
                self._poll.unregister(self._in)
            readable = False
            for fd, _ in events:
                if fd == self._in:
                    self._write_owed()
                else:
                    readable = True
            if readable:
                try:
                    chunk = os.read(self._out, CHUNK)
                except BlockingIOError:
                    continue
                except OSError:
                    chunk = b""
                self._split(chunk)
                if for_line:
                    return True
                self.ready.clear()
            elif not events:
                return False

    def _split(self, chunk):
        if not chunk:
            self._end_reading()
            if self._partial:
                self.ready.append(bytes(self._partial))
                self._partial.clear()
            self.ready.append(EOF)
            return
        lines = chunk.split(b"\n")
        last = lines.pop()              # after the last newline: the start of the next line (or b"")
        if lines:
            if self._partial:
                self._partial += lines[0]
                lines[0] = bytes(self._partial)
                self._partial.clear()
            for n, line in enumerate(lines):
                if len(line) > MAX_LINE:
                    self.ready.extend(lines[:n])
                    self._too_long(len(line))
                    return
            self.ready.extend(lines)
        self._partial += last
        if len(self._partial) > MAX_LINE:
            self._too_long(len(self._partial))

    def _too_long(self, size):
        self.ready.append(LineTooLong(size))
        self._partial.clear()
        self._end_reading()     # read no further: the session kills the runner for this

    def _end_reading(self):
        if not self._eof:
            self._eof = True
            self._poll.unregister(self._out)

    def _read_stderr(self):
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        read, line, dropped = self.proc.stderr.read1, bytearray(), 0
        while True:
            chunk = read(STDERR_CHUNK)
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

    def _write_owed(self):
        """Writes what the pipe takes of what is owed, in one system call; a runner gone (or its stdin closed)
        takes nothing more."""
        owed = self._owed
        try:
            n = os.writev(self._in, owed if len(owed) <= IOV_MAX else list(owed)[:IOV_MAX])
        except BlockingIOError:
            return
        except OSError:     # BrokenPipeError: the runner is gone; reading its stdout reports that (EOF)
            owed.clear()
            self._stdin_open = False
            return
        while n:
            first = owed[0]
            if len(first) <= n:
                n -= len(first)
                owed.popleft()
            else:
                owed[0] = memoryview(first)[n:]
                n = 0

    def send(self, data):
        """Data for the runner's stdin. It is written when the session next waits for an answer (read_line(),
        stop()), or once WRITE_BATCH pieces wait: the requests sent meanwhile go in one write, which wakes the runner
        once for them (a write per request cost a system call and a wake-up each)."""
        if self._stdin_open:
            self._owed.append(data)
            if len(self._owed) >= WRITE_BATCH:
                self._write_owed()

    def read_line(self, deadline):
        """The next stdout line (bytes, its newline dropped), LineTooLong, EOF, or TIMEOUT once time.monotonic()
        passes deadline."""
        while not self.ready:
            if self._eof:
                return EOF
            if not self._wait(deadline):
                return TIMEOUT
        return self.ready.popleft()

    def exit_status(self, wait=2.0):
        """The exit status after EOF; waits briefly so the status and last stderr lines are in."""
        try:
            status = self.proc.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            self.kill()
            status = self.proc.wait()
        self._threads[0].join(timeout=wait)
        self._unregister()
        return status

    def stop(self, grace=5.0):
        """Writes what is owed (the stop line), closes stdin; kills the runner if it does not exit in time."""
        deadline = time.monotonic() + grace
        self._wait(deadline, for_line=False)    # stdout is drained meanwhile: the runner may write as it reads
        self._close_stdin()
        try:
            return self.proc.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            self.kill()
            return None
        finally:
            self._threads[0].join(timeout=grace)
            self._unregister()

    def _close_stdin(self):
        self._stdin_open = False
        self._owed.clear()
        try:
            self.proc.stdin.close()
        except OSError:
            pass

    def kill_group(self):
        """SIGKILL to the runner's whole process group; does not wait (safe from a signal handler)."""
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass

    def kill(self):
        self.kill_group()
        self._close_stdin()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        self._threads[0].join(timeout=2)
        self._unregister()

    def _unregister(self):
        with _live_lock:
            _live.discard(self)
        if self.proc.returncode is not None:    # the pipes' ends are ours to close once the runner is gone
            for f in (self.proc.stdin, self.proc.stdout):
                try:
                    f.close()
                except OSError:
                    pass
            self._end_reading()

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
