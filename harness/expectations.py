"""runners/<name>/expected-failures.txt: known failures, so a run can pass while they are fixed.

Format, one entry per line: ID-GLOB  OP-GLOB  reason...  ('#' starts a comment line; '*' is the only
wildcard, everything else is literal, so 'decode[*]' means every variant decode). A failing verdict that an
entry matches becomes 'xfail'; a passing one becomes 'xpass' and fails the run, as does (in a full-corpus run)
an entry that matches nothing. A wildcard entry may match at most WILDCARD_CAP verdicts of the whole corpus, so
that a list cannot quietly hide a whole family.
"""

import re
from dataclasses import dataclass, field
from pathlib import Path

from harness.judge import RAW_FAILING

WILDCARD_CAP = 200
_ID_GLOB = re.compile(r"^[a-z0-9*]([a-z0-9._*-]*)$")
_OP = re.compile(r"^(encode|decode|decode\[[a-z0-9]+([.-][a-z0-9]+)*\]|reject|reject-encode)$")
_SAMPLE_OPS = ("encode", "decode", "decode[x]", "reject", "reject-encode")


class ExpectationError(Exception):
    pass


@dataclass
class Entry:
    path: str
    line_no: int
    id_glob: str
    op_glob: str
    reason: str
    text: str
    matched: list = field(default_factory=list)    # verdicts it matched in this run

    def __post_init__(self):
        self._id = _compile(self.id_glob)
        self._op = _compile(self.op_glob)

    @property
    def wildcard(self):
        return "*" in self.id_glob or "*" in self.op_glob

    @property
    def where(self):
        return f"{self.path}:{self.line_no}"

    def matches(self, vector_id, op_name):
        return bool(self._id.match(vector_id) and self._op.match(op_name))


def _compile(glob):
    return re.compile("^" + ".*".join(re.escape(part) for part in glob.split("*")) + "$")


def parse(path):
    """The entries of an expected-failures file; [] when it does not exist. Bad lines raise file:line errors."""
    path = Path(path)
    if not path.exists():
        return []
    entries = []
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            text = raw.strip()
            if not text or text.startswith("#"):
                continue
            fields = text.split(None, 2)
            if len(fields) < 3:
                raise ExpectationError(f"{path}:{n}: expected 'ID-GLOB  OP-GLOB  reason' (the reason is "
                                       f"mandatory), got: {text}")
            id_glob, op_glob, reason = fields
            if not _ID_GLOB.match(id_glob):
                raise ExpectationError(f"{path}:{n}: '{id_glob}' is not a vector id or id glob")
            if not (_OP.match(op_glob.replace("*", "x")) or any(_compile(op_glob).match(o) for o in _SAMPLE_OPS)):
                raise ExpectationError(f"{path}:{n}: '{op_glob}' is not an op or op glob (encode, decode, "
                                       f"decode[<label>], reject, reject-encode)")
            entries.append(Entry(str(path), n, id_glob, op_glob, reason, text))
    return entries


def check_cap(entries, all_keys):
    """Refuses wildcard entries matching more than WILDCARD_CAP (vector, op) pairs of the whole corpus."""
    for entry in entries:
        if entry.wildcard:
            count = sum(1 for vid, op in all_keys if entry.matches(vid, op))
            if count > WILDCARD_CAP:
                raise ExpectationError(f"{entry.where}: '{entry.id_glob}  {entry.op_glob}' matches {count} "
                                       f"verdicts; a wildcard entry may match at most {WILDCARD_CAP}")


@dataclass
class Advice:
    stale: list = field(default_factory=list)    # entries that matched nothing (full runs only)
    add: list = field(default_factory=list)      # lines to add
    remove: list = field(default_factory=list)   # lines to remove


def apply(entries, verdicts, full_run):
    """Turns matched verdicts into xfail / xpass (in place) and says which lines to add and remove."""
    for v in verdicts:
        if v.verdict in ("info", "unclaimed"):  # never failures (impl level, not claimed): never expected to fail
            continue
        hits = [e for e in entries if e.matches(v.vector, v.op)]
        for e in hits:
            e.matched.append(v)
        if hits:
            v.expectation = f"{hits[0].where}: {hits[0].reason}"
            v.verdict = "xfail" if v.verdict in RAW_FAILING else "xpass"
    advice = Advice()
    for e in entries:
        if not e.matched:
            if full_run:
                advice.stale.append(e)
                advice.remove.append(e.text)
        elif any(v.verdict == "xpass" for v in e.matched):
            # Replace the entry by exact lines for what still fails under it.
            advice.remove.append(e.text)
            advice.add += [f"{v.vector}  {v.op}  {e.reason}" for v in e.matched if v.verdict == "xfail"]
    for v in verdicts:
        if v.verdict in RAW_FAILING:
            detail = v.detail if len(v.detail) <= 100 else v.detail[:100] + "..."
            advice.add.append(f"{v.vector}  {v.op}  {v.verdict}: {detail}")
    advice.add = sorted(set(advice.add))
    advice.remove = sorted(set(advice.remove))
    return advice
