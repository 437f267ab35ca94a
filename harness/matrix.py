"""Producer x consumer matrix: each runner's encode output for every value vector, decoded by every other runner.

One cell per ordered pair (producer, consumer), producer != consumer; each value vector adds one count to it:
  no_bytes  the producer wrote no bytes (refused, skipped, crashed): its own encode verdict already says so.
  pass      the consumer decoded the producer's bytes to the vector's values (the comparison of judge.py).
  xfail     it did not, and another verdict already records why, so the run does not count it twice:
            - the bytes are the vector's canonical bytes or one of its variants, and the consumer's own verdict
              on that op (decode / decode[<label>]) did not pass either (listed in expected-failures.txt or not);
            - the bytes are none of the corpus's, and the producer's encode verdict did not pass (wrong bytes);
            - the vector is impl-level (recorded, never a failure).
  fail      a disagreement no per-runner verdict records: the consumer mis-reads bytes that the producer wrote
            and the corpus accepts (a NaN-class payload), or answers the same bytes differently than in its own op.
  fault     the consumer crashed, timed out, broke the protocol or was given up ('abandoned') on a decode sent
            for the matrix: counted, shown, and failing the run (a consumer that never started is not counted
            again: its own verdicts already say so).
Each consumer decodes each distinct (vector, bytes) once, however many producers wrote them. Bytes that are the
vector's canonical bytes or one of its variants are not sent again: the consumer already decoded exactly them in
its own op (decode / decode[<label>]), and that outcome stands for the cell (runners answer the same bytes the
same way; a second request would only repeat the verdict), unless the op ended in a fault (crash, timeout,
protocol error): then they are sent again. Bytes the corpus does not have are always sent.
"""

import hashlib
from dataclasses import dataclass, field

from harness import threads
from harness.judge import Outcome
from harness.ops import Op
from harness.results import FAULTS
from harness.runner_process import StderrLog
from harness.runner_session import MAX_FAULTS, Session

# Own outcomes that are the runner's answer to the bytes (or the capability rule): a second request would repeat
# them. A crash, timeout or protocol error may have been the process's state at the time: those bytes are re-sent.
REUSABLE = ("pass", "fail", "skip", "unclaimed")
SHOWN_PER_CELL = 5          # failing vector ids printed per cell (all of them are in report.json)
NOT_STARTED = "runner did not start"


@dataclass
class Cell:
    producer: str
    consumer: str
    passed: int = 0
    failed: int = 0
    xfailed: int = 0
    no_bytes: int = 0
    faulted: int = 0
    fresh_passed: int = 0   # passes judged on a decode sent for the matrix (not a reused own verdict)
    failing: list = field(default_factory=list)         # vector ids
    faulting: list = field(default_factory=list)        # vector ids counted in faulted
    diagnoses: list = field(default_factory=list)       # (vector id, Outcome) of the failing ones

    def as_json(self):
        return {"producer": self.producer, "consumer": self.consumer, "pass": self.passed, "fail": self.failed,
                "xfail": self.xfailed, "no_bytes": self.no_bytes, "fault": self.faulted, "failing": self.failing,
                "faulting": self.faulting}


@dataclass
class Matrix:
    names: list
    cells: list
    requests: int = 0       # decode requests sent for the matrix, over all consumers

    def as_json(self):
        return {"producers": self.names, "consumers": self.names, "cells": [c.as_json() for c in self.cells]}

    @property
    def passed(self):
        """Passes that are new verdicts: a reused own-op verdict is already in the per-runner totals."""
        return sum(c.fresh_passed for c in self.cells)

    @property
    def failed(self):
        return sum(c.failed + c.faulted for c in self.cells)


def run(final, plan, corpus_version, timeout, start_timeout, window, out, max_faults=MAX_FAULTS):
    """final: [(config, RunnerResult, [Verdict], Advice)] of the per-runner run over plan."""
    names = [config.name for config, *_ in final]
    encodes = [op for op in plan if op.name == "encode" and op.vector["kind"] == "value"]
    # What each producer wrote for each encode op, as the key its outcome is found by: (vector id, hex), or None
    # when it wrote no bytes (one list per producer, in the order of encodes).
    wrote = {}
    for config, result, _, _ in final:
        hexes = [_bytes_of(result.outcomes.get(op.key)) for op in encodes]
        wrote[config.name] = [None if hex_ is None else (op.vector_id, hex_) for op, hex_ in zip(encodes, hexes)]
    # Each runner's own outcomes, by op key: a verdict's 'outcome' is its Outcome's verdict.
    own = {config.name: result.outcomes for config, result, _, _ in final}

    # Each consumer's decode requests: the distinct bytes the other runners wrote for each vector that are not
    # the corpus's (those the consumer decoded in its own op: its outcome there is reused).
    # Each distinct key once (most runners write the same bytes): {key: (its encode op's index, the positions in
    # names of the runners that wrote it, in order)}.
    writers = {}
    for p, producer in enumerate(names):
        for n, key in enumerate(wrote[producer]):
            if key is not None:
                writers.setdefault(key, (n, []))[1].append(p)
    requests, reused = {}, {}
    for c, (config, result, _, _) in enumerate(final):
        ops, known = [], {}
        for key, (n, by) in writers.items():
            if by == [c]:       # bytes only the consumer itself wrote
                continue
            op = encodes[n]
            same_op = _corpus_op(op.vector, key[1])
            earlier = result.outcomes.get((op.vector_id, same_op)) if same_op is not None else None
            if earlier is not None and earlier.verdict in REUSABLE:
                known[key] = earlier
            else:
                ops.append(((n, next(p for p in by if p != c)), key, _decode_op(op.vector, key[1])))
        # Requested in encode order, then in the order of the first other runner that wrote the bytes.
        requests[config.name], reused[config.name] = {key: op for _, key, op in sorted(ops, key=lambda o: o[0])}, known
    outcomes = _decode_all([(config, result, requests[config.name]) for config, result, _, _ in final],
                           corpus_version, timeout, start_timeout, window, out, max_faults)

    # Most cells are a producer's bytes that the consumer passed in its own ops: those are counted as sets (C's
    # speed), and only the other keys looked at one by one, in encode order (the cells were 0.03 s of a full
    # run's end, after the last runner, on one core). A producer's keys are distinct: one encode op per vector.
    index = {producer: {key: n for n, key in enumerate(keys) if key is not None} for producer, keys in wrote.items()}
    passing = {consumer: {key for key, outcome in known.items() if outcome.verdict == "pass"}
               for consumer, known in reused.items()}
    cells = []
    for producer in names:
        keys, at = wrote[producer], index[producer]
        for consumer in names:
            if producer == consumer:
                continue
            cell = Cell(producer, consumer)
            known, asked, answers = reused[consumer], requests[consumer], outcomes[consumer]
            cell.no_bytes = len(keys) - len(at)
            rest = at.keys() - passing[consumer]
            cell.passed = len(at) - len(rest)
            for key in sorted(rest, key=at.__getitem__):
                op = encodes[at[key]]
                outcome = known.get(key)
                fresh = outcome is None
                if fresh:
                    outcome = answers[asked[key].key]
                verdict = "pass" if outcome.verdict == "pass" else _classify(op.vector, key[1], outcome, own,
                                                                               producer, consumer)
                if verdict == "pass":
                    cell.passed += 1
                    cell.fresh_passed += fresh
                elif verdict == "xfail":
                    cell.xfailed += 1
                elif verdict == "fault":
                    cell.faulted += 1
                    cell.faulting.append(op.vector_id)
                    cell.diagnoses.append((op.vector_id, outcome))
                else:
                    cell.failed += 1
                    cell.failing.append(op.vector_id)
                    cell.diagnoses.append((op.vector_id, outcome))
            cells.append(cell)
    return Matrix(names, cells, sum(len(r) for r in requests.values()))


def _bytes_of(outcome):
    return outcome.output if outcome is not None and outcome.output is not None else None


def _decode_op(vector, hex_):
    # The op name keys the outcome by (vector, bytes); judge.py treats every non-reject decode op alike.
    return Op(vector, f"decode[matrix-{hashlib.sha256(hex_.encode()).hexdigest()[:12]}]", "decode", hex=hex_)


def _corpus_op(vector, hex_):
    """The consumer's own op on exactly these bytes, if the corpus has them for this vector."""
    if hex_ == vector["canonical"]:
        return "decode"
    return next((f"decode[{v['label']}]" for v in vector["variants"] if v["hex"] == hex_), None)


def _classify(vector, hex_, outcome, own, producer, consumer):
    if outcome.verdict == "pass":
        return "pass"
    if outcome.verdict in FAULTS and outcome.detail != NOT_STARTED:
        return "fault"
    if vector["level"] == "impl":
        return "xfail"
    same_op = _corpus_op(vector, hex_)
    if same_op is not None:
        return "xfail" if own[consumer][(vector["id"], same_op)].verdict != "pass" else "fail"
    return "xfail" if own[producer][(vector["id"], "encode")].verdict != "pass" else "fail"


def _decode_all(work, corpus_version, timeout, start_timeout, window, out, max_faults):
    """{consumer: {op.key: Outcome}}; one thread per consumer, as the per-runner run."""
    found, errors = {}, []

    def decode(config, first_result, ops):
        try:
            if not ops:                     # every byte string was the corpus's: nothing to start the runner for
                found[config.name] = {}
                return
            if first_result.start_error:    # it never started in the main run: do not wait for it again
                found[config.name] = {op.key: Outcome("crash", NOT_STARTED) for op in ops.values()}
                return
            with StderrLog(out / f"{config.name}.stderr.log", "a") as log:
                session = Session(config, corpus_version, timeout, start_timeout, window, log, max_faults)
                found[config.name] = session.run(list(ops.values())).outcomes
        except BaseException as e:      # a harness bug: re-raised after the other threads finish
            errors.append(e)

    threads.run_all([lambda w=w: decode(*w) for w in work])
    if errors:
        raise errors[0]
    return found


def add_to_report(report, matrix):
    report["matrix"] = matrix.as_json()
    # Fresh verdicts only: xfail and no_bytes cells, and passes on bytes whose own-op verdict was reused,
    # repeat verdicts the per-runner totals already hold.
    report["totals"]["passed"] += matrix.passed
    report["totals"]["failed"] += matrix.failed


def print_matrix(matrix, max_diagnoses, say):
    shown = 0
    for cell in matrix.cells:
        for vector_id, outcome in cell.diagnoses:
            kind = "FAULT" if outcome.verdict in FAULTS else "FAIL"
            say(f"{kind} matrix {cell.producer} -> {cell.consumer} {vector_id}: {outcome.verdict}: {outcome.detail}")
            if shown < max_diagnoses:
                shown += 1
                for line in outcome.diagnosis:
                    say(f"    {line}")
    width = max(12, *(len(n) + 2 for n in matrix.names))
    cells = {(c.producer, c.consumer): c for c in matrix.cells}
    # Bytes the corpus holds were already decoded by each consumer in its own run: those cells reuse that
    # verdict, so a clean run sends nothing more. Say so rather than print "0 decode requests".
    plural = "s" if matrix.requests != 1 else ""
    sent = (f"{matrix.requests} extra decode request{plural}, for bytes the corpus does not hold" if matrix.requests
            else "no extra decode requests: every producer wrote bytes the corpus holds, and each cell reuses "
                 "the consumer's own verdict on them")
    say(f"matrix: rows wrote the bytes, columns decoded them; pass/fail/xfail/no-bytes per vector, then faults "
        f"(crash, timeout, protocol error) if any ({sent})")
    say("  " + "".ljust(width) + "".join(n.rjust(width + 6) for n in matrix.names))
    for p in matrix.names:
        row = [("-" if p == c else _cell_text(cells[(p, c)])).rjust(width + 6) for c in matrix.names]
        say("  " + p.ljust(width) + "".join(row))
    for cell in matrix.cells:
        for what, ids in (("failing", cell.failing), ("faulting", cell.faulting)):
            if ids:
                more = f" and {len(ids) - SHOWN_PER_CELL} more" if len(ids) > SHOWN_PER_CELL else ""
                say(f"  {cell.producer} -> {cell.consumer} {what}: {', '.join(ids[:SHOWN_PER_CELL])}{more}")


def _cell_text(cell):
    faults = f" {cell.faulted} fault" if cell.faulted else ""
    return f"{cell.passed}/{cell.failed}/{cell.xfailed}/{cell.no_bytes}{faults}"
