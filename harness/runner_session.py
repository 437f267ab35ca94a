"""Drives one runner over a list of ops: handshake, capability skips, pipelined requests, restart on faults.

Every op ends with exactly one Outcome. Responses come back in request order, so a fault (no answer in time,
exit, a line that is not a valid response) belongs to the oldest unanswered request: that op gets crash /
timeout / protocol-error, the process is killed and restarted, and the requests sent after it are sent again.
After max_faults crashes or timeouts in a row the runner is given up: its remaining ops are 'abandoned'.

Runner texts enter verdicts here only, and are cleaned here once (harness/text.py): a failing outcome's detail
and diagnosis lines, the start answer's strings, stderr lines (runner_process.py).
"""

import collections
import json
import time
from dataclasses import dataclass, field

from harness import schemas
from harness.judge import NotAnAnswer, Outcome, answer, coarse
from harness.ops import encode_line, start_request, unsupported
from harness.runner_process import EOF, STOP, TIMEOUT, Interrupted, LineTooLong, RunnerProcess, clean_line
from harness.text import clean, first_line as _first_line

PROTOCOL = 1
MAX_FAULTS = 5          # crashes or timeouts in a row before a runner is given up (--max-faults)
WINDOW_BYTES = 8 << 20  # unanswered request bytes past which no more requests are sent (one at least)
STRAY_GRACE = 1.0       # seconds to wait for the line after a blank stray line (what the runner meant to print)
STRAY_LOOKAHEAD = 20    # blank lines read past one before giving up on finding its text


class StartError(Exception):
    pass


@dataclass
class RunnerResult:
    name: str
    info: dict = None              # the start response of the first successful start
    start_error: str = None
    outcomes: dict = field(default_factory=dict)    # op.key -> Outcome
    restarts: int = 0
    unmet: list = field(default_factory=list)       # --require capabilities it does not claim (set by the cli)
    abandoned: str = None          # why the runner was given up, if it was
    # Made as soon as the session ended (verify_run's finish): its Verdicts, expectations marked on them
    # (expectations.mark), their counts (results.counts), their report.json records and junit.xml testsuite.
    verdicts: list = None
    counts: dict = None
    records: list = None
    junit: list = None


class Session:
    def __init__(self, config, corpus_version, timeout, start_timeout, window=8, stderr_log=None,
                 max_faults=MAX_FAULTS, on_outcome=None):
        self.config, self.corpus_version = config, corpus_version
        self.timeout, self.start_timeout, self.window = timeout, start_timeout, window
        self.stderr_log = stderr_log
        self.max_faults, self.faults_in_row, self.abandoned = max_faults, 0, None
        self.on_outcome = on_outcome    # called (runner name, op, Outcome) as each verdict comes in
        self.next_id = 1
        self.proc = None
        self.prestarted = None      # a process started before the plan was made (harness/prestart.py), used once
        self.coarse = ()            # the start answer's capabilities.coarse_classes (judge.coarse)

    def run(self, ops, result=None):
        """A RunnerResult with one Outcome per op; fewer when the run is interrupted (stop_all())."""
        result = result if result is not None else RunnerResult(self.config.name)
        try:
            self._run(ops, result)
        except Interrupted:
            if self.proc:
                self.proc.kill()
                self.proc = None
        return result

    def _run(self, ops, result):
        try:
            result.info = self._start()
        except StartError as e:
            result.start_error = str(e)
            for op in ops:
                self._record(result, op, Outcome("crash", f"runner did not start: {_first_line(e)}",
                                                 str(e).splitlines()))
            return
        pending, reasons = collections.deque(), {}
        for op in ops:
            # The reason depends on the op's command, era and format only: found once for each of those.
            vector = op.vector
            kind = (op.cmd, vector["era"], vector.get("format"))
            why = reasons.get(kind, reasons)
            if why is reasons:
                why = reasons[kind] = unsupported(op, result.info["capabilities"])
            if why:
                # Outside what the runner claims: counted and shown, never sent, never a failure by itself.
                self._record(result, op, Outcome("unclaimed", f"not claimed: {why}"))
            else:
                pending.append(op)
        self._exchange(pending, result)
        if self.proc:
            self.proc.send(encode_line({"cmd": "stop"}))
            self.proc.stop()

    # For callers that keep one process across many small batches (the matrix, the fuzzer): open() once,
    # exchange() per batch (ops the runner supports; faults restart it as in run()), close() at the end.
    def open(self, result):
        """Starts the runner; result.info gets its start response (StartError if it cannot start)."""
        result.info = self._start()

    def exchange(self, ops, result):
        # Each batch starts afresh: a runner given up in an earlier batch is tried again (the fuzzer's batches
        # are independent values; a fault that repeats is found again within --max-faults requests).
        self.abandoned, self.faults_in_row = None, 0
        if self.proc is None:       # an earlier restart failed: try again, or charge every op
            try:
                self._start()
            except StartError as e:
                self._charge_unstarted(ops, result, e)
                return
        self._exchange(collections.deque(ops), result)

    def close(self):
        if self.proc:
            self.proc.send(encode_line({"cmd": "stop"}))
            self.proc.stop()
            self.proc = None

    def _exchange(self, pending, result):
        inflight = collections.deque()      # (request id, op, time sent, bytes)
        inflight_bytes = 0
        last_answer = time.monotonic()
        while pending or inflight:
            # The window's free places filled in one write. Once WINDOW_BYTES of requests are unanswered (a run of
            # multi-megabyte vectors) no more are sent, so memory stays bounded as with a small window; an empty
            # window always takes one request.
            lines, now, rid = [], time.monotonic(), self.next_id
            while pending and len(inflight) < self.window and (not inflight or inflight_bytes < WINDOW_BYTES):
                op = pending.popleft()
                line = op.request_line(rid)
                lines.append(line)
                inflight.append((rid, op, now, len(line)))
                inflight_bytes += len(line)
                rid += 1
            self.next_id = rid
            if lines:
                self.proc.send(b"".join(lines))
            rid, op, sent, size = inflight[0]
            line = self.proc.read_line(max(sent, last_answer) + self.timeout)
            fault, outcome = self._answer(line, rid, op)
            if fault is None:
                inflight.popleft()
                inflight_bytes -= size
                self._record(result, op, outcome)
                self.faults_in_row = 0
                # Lines read with it that answer the requests due next are judged here, without a read per line
                # (the usual case: a read brings dozens). Up to half a window, then the window is filled again; a
                # line that is no answer is left for the read above, which kills and restarts the runner.
                ready, outcomes, on_outcome = getattr(self.proc, "ready", None), result.outcomes, self.on_outcome
                name = self.config.name
                for _ in range(min(self.window // 2, len(ready) if ready else 0, len(inflight))):
                    line = ready[0]
                    if type(line) is not bytes:
                        break
                    rid, op, _, size = inflight[0]
                    outcome = answer(op, rid, line)
                    if type(outcome) is NotAnAnswer:
                        break
                    ready.popleft()
                    inflight.popleft()
                    inflight_bytes -= size
                    if outcome.verdict != "pass":
                        self._record(result, op, outcome)
                        continue
                    outcomes[op.key] = outcome      # a pass: as _record() does, with nothing to clean
                    if on_outcome:
                        on_outcome(name, op, outcome)
                last_answer = time.monotonic()
                continue
            if STOP.is_set():       # the fault is the interrupt killing the runner: not the runner's
                raise Interrupted()
            inflight.popleft()
            self._record(result, op, fault)
            # Requests sent after the faulty one were not at fault: send them again to a fresh process.
            pending.extendleft(reversed([o for _, o, _, _ in inflight]))
            inflight.clear()
            inflight_bytes = 0
            if fault.verdict in ("crash", "timeout"):
                self.faults_in_row += 1
                if self.faults_in_row >= self.max_faults:
                    self.abandoned = (f"given up after {self.faults_in_row} crashes or timeouts in a row "
                                      f"(--max-faults {self.max_faults})")
                    result.abandoned = self.abandoned
                    self._abandon(pending, result)
                    return
            result.restarts += 1
            try:
                self._start()
            except StartError as e:
                self._charge_unstarted(pending, result, e)
                pending.clear()
                return
            last_answer = time.monotonic()

    def _abandon(self, ops, result):
        if self.proc:
            self.proc.kill()
            self.proc = None
        for op in ops:
            self._record(result, op, Outcome("abandoned", f"not sent: the runner was {self.abandoned}"))

    def _record(self, result, op, outcome):
        if self.coarse and outcome.verdict == "fail":
            outcome = coarse(op, outcome, self.coarse)
        if outcome.verdict != "pass":       # passes hold the harness's own words only
            outcome.detail = clean(outcome.detail)
            outcome.diagnosis = [clean(line) for line in outcome.diagnosis]
        result.outcomes[op.key] = outcome
        if self.on_outcome:
            self.on_outcome(self.config.name, op, outcome)

    def _charge_unstarted(self, ops, result, error):
        """Every op still owed an answer gets a crash: the runner could not be (re)started for it."""
        for op in ops:
            self._record(result, op, Outcome("crash", f"runner could not be restarted: {_first_line(error)}",
                                             str(error).splitlines()))

    def _answer(self, line, rid, op):
        """(None, the judged Outcome) if line is a valid response to request rid, else (the fault's Outcome for op,
        None) and the process is killed."""
        if line is TIMEOUT:
            self.proc.kill()
            return Outcome("timeout", f"no answer within {self.timeout:g} s", self._stderr("runner stderr")), None
        if line is EOF:
            status = self.proc.describe_exit(self.proc.exit_status())
            return Outcome("crash", f"runner {status} while handling this request",
                           self._stderr("runner stderr (last lines)")), None
        if isinstance(line, LineTooLong):
            self.proc.kill()
            return Outcome("protocol-error", line.describe(), self._stderr("runner stderr")), None
        outcome = answer(op, rid, line)
        if type(outcome) is not NotAnAnswer:
            return None, outcome
        problem, shown = outcome.problem, None
        if outcome.not_json is not None:    # a stray line: shown by its text (a blank one, with the line after it)
            shown = self._stray(line)
            problem = f"stdout line is not JSON ({outcome.not_json}): {shown(200)}"
        self.proc.kill()
        return Outcome("protocol-error", problem,
                       [f"line: {shown(2000) if shown else clean_line(line, 2000)}"] + self._stderr("runner stderr")), None

    def _stray(self, line):
        """limit -> the text of a stray stdout line. A blank one says nothing: it is shown with the first non-blank
        line after it (a runner's print or warning that went to stdout), read within STRAY_GRACE."""
        if not isinstance(line, bytes) or line.strip():
            return lambda limit: clean_line(line, limit)
        deadline = time.monotonic() + STRAY_GRACE
        for _ in range(STRAY_LOOKAHEAD):
            after = self.proc.read_line(deadline)
            if not isinstance(after, bytes):
                break
            if after.strip():
                return lambda limit: f"a blank line, then: {clean_line(after, limit)}"
        return lambda limit: "a blank line (nothing printed after it)"

    def _stderr(self, title):
        tail = self.proc.stderr_text() if self.proc else []
        return [f"{title}:"] + [f"  | {t}" for t in tail] if tail else []

    def _start(self):
        """Starts (or restarts) the process and checks its handshake; returns the start response."""
        if self.proc:
            self.proc.kill()
        early, self.prestarted = self.prestarted, None
        try:
            self.proc = early or RunnerProcess(self.config.argv, self.config.cwd, self.stderr_log)
        except OSError as e:
            self.proc = None
            raise StartError(str(e)) from None
        self.proc.send(encode_line(start_request(self.corpus_version)))
        line = self.proc.read_line(time.monotonic() + self.start_timeout)
        problem = None
        if line is TIMEOUT:
            problem = f"no answer to 'start' within {self.start_timeout:g} s"
        elif line is EOF:
            problem = f"runner {self.proc.describe_exit(self.proc.exit_status())} before answering 'start'"
        elif isinstance(line, LineTooLong):
            problem = f"answer to 'start': {line.describe()}"
        else:
            problem, info = self._check_start(line)
        if problem:
            if STOP.is_set():
                raise Interrupted()
            stderr = self._stderr("runner stderr (last lines)")
            self.proc.kill()
            self.proc = None
            raise StartError("\n".join([clean(problem)] + stderr))
        return info

    def _check_start(self, line):
        try:
            info = json.loads(line)
        except (ValueError, RecursionError):
            return f"answer to 'start' is not JSON: {clean_line(line)}", None
        if not isinstance(info, dict):
            return f"answer to 'start' is not an object: {clean_line(line)}", None
        if info.get("protocol") != PROTOCOL:
            return f"runner speaks protocol {info.get('protocol')!r}; the harness speaks protocol {PROTOCOL}", None
        if not schemas.is_valid("protocol.schema.json", "/$defs/start_response", info):
            error = schemas.first_error(schemas.validator("protocol.schema.json", "/$defs/start_response"), info)
            return f"answer to 'start' violates protocol.schema.json#/$defs/start_response: {error}", None
        major = int(self.corpus_version.split(".")[0])
        if major not in info["corpus_majors"]:
            return (f"runner supports corpus major version(s) {info['corpus_majors']}; "
                    f"this corpus is {self.corpus_version}"), None
        if info["name"] != self.config.name:
            return f"runner calls itself '{info['name']}', expected '{self.config.name}'", None
        problem = coarse_problem(info["capabilities"].get("coarse_classes", ()))
        if problem:
            return problem, None
        self.coarse = tuple(info["capabilities"].get("coarse_classes", ()))
        for key in ("language", "library", "library_version"):     # shown in every summary line and page
            info[key] = clean(info[key], 200)
        return None, info


def coarse_problem(declared):
    """Why a start answer's capabilities.coarse_classes cannot be used, or None: each must be an error class of
    schema/registry.json or a family of some (an ancestor on a '.' boundary: 'malformed', 'invalid')."""
    classes = [c["class"] for c in schemas.load("registry.json")["error_classes"]]
    for name in declared:
        if name not in classes and not any(c.startswith(name + ".") for c in classes):
            families = sorted({c.rsplit(".", i)[0] for c in classes for i in range(1, c.count(".") + 1)})
            return (f"capabilities.coarse_classes: '{name}' is neither an error class of schema/registry.json nor a "
                    f"family of one on a '.' boundary (families: {', '.join(families)})")
    return None
