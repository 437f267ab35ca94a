"""out/verdicts.jsonl: every raw verdict as it comes in, one JSON line each, flushed within FLUSH_S, so a run
that is killed (a CI job's timeout, SIGKILL) still leaves a readable record of what it found. (A flush per line
was the harness's largest per-answer cost: a system call for each of 21,000 verdicts per runner.) report.json is written
at the end from the same outcomes; the journal's last line says whether the run completed. `python3 -m harness
report-journal` rebuilds report.json and junit.xml from a journal (harness/rebuild.py).

Lines: {"journal": 1, "corpus_version", "runners", "ops", "selection", "commands", "expected_failures"} first;
then {"runner", "vector", "op", "outcome", "detail"} per verdict (outcome: the verdict before levels and
expectations), plus "diagnosis", "answer", "matched" when the outcome has them; then {"end": "complete" |
"interrupted by SIGINT" | ...} when the harness got that far.
"""

import collections
import json
import threading

FORMAT = 1
FLUSH_S = 0.1   # a killed run loses at most the verdicts of its last FLUSH_S
MAX_SHARED = 4096   # distinct (outcome, detail, answer, matched) endings kept encoded
_ascii = json.encoder.encode_basestring_ascii     # json.dumps of a str (ASCII: see _write)


class Journal:
    """add() only queues a line's pieces (a deque's append is atomic: no lock, no file call per verdict); the flusher
    thread writes what is queued every FLUSH_S, in one write, and close() the rest."""

    def __init__(self, path, corpus_version, runners, ops, run=None):
        self._f = open(path, "w", encoding="utf-8")
        self._lock = threading.Lock()       # the file's: the flusher's writes and close()
        self._queued = collections.deque()  # pieces of lines, in order; each line's pieces added at once
        self._closed = threading.Event()
        self._heads, self._ops, self._rests, self._passes = {}, {}, {}, {}
        self._write({"journal": FORMAT, "corpus_version": corpus_version, "runners": runners, "ops": ops,
                     **(run or {})})
        threading.Thread(target=self._flusher, daemon=True).start()

    def _write(self, record):
        self._queued.append(json.dumps(record) + "\n")     # ASCII: nothing a runner sent can make it unwritable

    def _drain(self):
        with self._lock:
            queued, pieces = self._queued, []
            for _ in range(len(queued)):
                pieces.append(queued.popleft())
            if pieces and not self._f.closed:
                self._f.write("".join(pieces))
                self._f.flush()

    def _flusher(self):
        while not self._closed.wait(FLUSH_S):
            self._drain()

    def add(self, runner, op, outcome):
        if outcome.diagnosis:
            self._write(record(runner, op, outcome))
            return
        # Most lines differ only in runner, vector and op: the same text as json.dumps(record(...)), from pieces
        # encoded once (a json.dumps per verdict was most of the journal's cost).
        head = self._heads.get(runner)
        if head is None:
            head = self._heads[runner] = '{"runner": ' + _ascii(runner)
        # A pass outcome is one object for every runner's answer to an op (judge.py): the rest of its line is kept
        # with it, per op (the outcome is held, so its id is not another's).
        done = self._passes.get(op.key)
        if done is not None and done[0] is outcome:
            self._queued.extend((head, done[1]))
            return
        where = self._ops.get(op.key)
        if where is None:
            where = self._ops[op.key] = ', "vector": ' + _ascii(op.vector_id) + ', "op": ' + _ascii(op.name)
        key = (outcome.verdict, outcome.detail, outcome.answer, outcome.matched)
        rest = self._rests.get(key)
        if rest is None:
            rest = json.dumps(record(runner, op, outcome))
            rest = rest[rest.index(', "outcome": '):] + "\n"
            if len(self._rests) < MAX_SHARED:
                self._rests[key] = rest
        if outcome.verdict == "pass":
            self._passes[op.key] = (outcome, where + rest)
        self._queued.extend((head, where, rest))

    def close(self, end):
        self._write({"end": end})
        self._closed.set()
        self._drain()
        with self._lock:
            self._f.close()


def record(runner, op, outcome):
    """A verdict's journal record."""
    rec = {"runner": runner, "vector": op.vector_id, "op": op.name, "outcome": outcome.verdict,
           "detail": outcome.detail}
    if outcome.diagnosis:
        rec["diagnosis"] = outcome.diagnosis
    for name in ("answer", "matched"):      # short labels (values, hex, error:<class>, a variant's label)
        if getattr(outcome, name) is not None:
            rec[name] = getattr(outcome, name)
    return rec


def read(path):
    """(header, [verdict records], end or None) of a journal; a torn last line (killed mid-write) is ignored."""
    header, records, end = None, [], None
    with open(path, encoding="utf-8") as f:
        for text in f:
            try:
                record = json.loads(text)
            except ValueError:
                break
            if "journal" in record:
                header = record
            elif "end" in record:
                end = record["end"]
            else:
                records.append(record)
    return header, records, end
