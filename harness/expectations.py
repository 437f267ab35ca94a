"""runners/<name>/expected-failures.txt: known failures, so a run can pass while they are fixed.
The same file is the corpus packages' skip list (SkipList in every loader): docs/skip-file.md describes it once.

Format, one entry per line: SCOPE  OP-GLOB  reason...  ('#' starts a comment line). SCOPE is one of
  ID             one vector id (looked up by key: a list of 10,000 such lines costs nothing per verdict)
  ID-GLOB        ids matching a glob ('*' is the only wildcard, everything else is literal)
  family:NAME    every vector of one corpus family (the file's "family", e.g. family:float)
  era:ERA        every vector of one era (era:alpha3)
  format:FORMAT  every vector of one byte format (format:table-row)
and OP-GLOB an op or op glob ('decode[*]' means every variant decode). A failing verdict an entry matches becomes
'xfail'; a passing one becomes 'xpass' and fails the run, as does (in a full run) an entry that matches nothing
although the loaded corpus holds its scope. An entry whose scope the corpus does not hold (a foreign or partial
corpus, e.g. --corpus FILE) is only noted. An ID-GLOB entry may match at most WILDCARD_CAP verdicts of the whole
corpus, so that a glob cannot quietly hide a family: a family:, era: or format: entry says so by name.
"""

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path

from harness.judge import RAW_FAILING

WILDCARD_CAP = 200
# What a suggested entry may list: what the library does wrong or does not do. A crash, timeout or protocol error is
# the runner's own bug, to be fixed rather than listed, so no line is ever proposed for one.
LISTABLE = ("fail", "skip")
SCOPES = ("family", "era", "format")
_ID_GLOB = re.compile(r"^[a-z0-9*]([a-z0-9._*-]*)$")
_SCOPED = re.compile(r"^(family|era|format):([a-z0-9][a-z0-9._-]*)$")
_OP = re.compile(r"^(encode|decode|decode\[[a-z0-9]+([.-][a-z0-9]+)*\]|reject|reject-encode)$")
_SAMPLE_OPS = ("encode", "decode", "decode[x]", "reject", "reject-encode")


class ExpectationError(Exception):
    pass


@dataclass
class Entry:
    path: str
    line_no: int
    id_glob: str        # a vector id, an id glob, or 'family:NAME' / 'era:ERA' / 'format:FORMAT'
    op_glob: str
    reason: str
    text: str
    matched: list = field(default_factory=list)    # verdicts it matched in this run

    def __post_init__(self):
        scoped = _SCOPED.match(self.id_glob)
        self.scope = (scoped.group(1), scoped.group(2)) if scoped else None
        # An exact id is compared as a string: compiling 10,000 distinct patterns would cost more than the run.
        self._id = compile_glob(self.id_glob) if not scoped and "*" in self.id_glob else None
        self._op = compile_glob(self.op_glob)

    @property
    def wildcard(self):
        """An id glob (capped); a scoped entry names its scope instead."""
        return self.scope is None and "*" in self.id_glob

    @property
    def exact_id(self):
        return self.scope is None and "*" not in self.id_glob

    @property
    def where(self):
        return f"{self.path}:{self.line_no}"

    def matches(self, vector_id, op_name, scope=None):
        """scope: {'family': ..., 'era': ..., 'format': ...} of the vector, needed by scoped entries."""
        if not self._op.match(op_name):
            return False
        if self.scope:
            return scope is not None and scope.get(self.scope[0]) == self.scope[1]
        return bool(self._id.match(vector_id)) if self._id else vector_id == self.id_glob


@functools.lru_cache(maxsize=None)      # op globs repeat on most lines
def compile_glob(glob):
    """An expected-failures glob: `*` is the only wildcard, `[` `]` are literal."""
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
            if ":" in id_glob and not _SCOPED.match(id_glob):
                raise ExpectationError(f"{path}:{n}: '{id_glob}' is not a scope (family:NAME, era:ERA or "
                                       f"format:FORMAT)")
            if not (_SCOPED.match(id_glob) or _ID_GLOB.match(id_glob)):
                raise ExpectationError(f"{path}:{n}: '{id_glob}' is not a vector id or id glob")
            if not (_OP.match(op_glob.replace("*", "x")) or any(compile_glob(op_glob).match(o) for o in _SAMPLE_OPS)):
                raise ExpectationError(f"{path}:{n}: '{op_glob}' is not an op or op glob (encode, decode, "
                                       f"decode[<label>], reject, reject-encode)")
            entries.append(Entry(str(path), n, id_glob, op_glob, reason, text))
    return entries


def check_cap(entries, all_keys):
    """Refuses id-glob entries matching more than WILDCARD_CAP (vector, op) pairs of the whole corpus."""
    for entry in entries:
        if entry.wildcard:
            count = sum(1 for vid, op in all_keys if entry.matches(vid, op))
            if count > WILDCARD_CAP:
                raise ExpectationError(f"{entry.where}: '{entry.id_glob}  {entry.op_glob}' matches {count} "
                                       f"verdicts; a wildcard entry may match at most {WILDCARD_CAP} (name a "
                                       f"family:, era: or format: scope with a reason instead)")


class Index:
    """Entries by key: exact ids in a dict (O(1) per verdict), scoped entries by (kind, name), globs by the
    literal text before their first '*' (only globs whose prefix the id starts with are tried)."""

    def __init__(self, entries):
        self.by_id, self.by_scope, self.globs = {}, {}, []
        for e in entries:
            if e.scope:
                self.by_scope.setdefault(e.scope, []).append(e)
            elif e.exact_id:
                self.by_id.setdefault(e.id_glob, []).append(e)
            else:
                self.globs.append((e.id_glob.split("*", 1)[0], e))

    def hits(self, vector_id, op_name, scope):
        out = [e for e in self.by_id.get(vector_id, ()) if e._op.match(op_name)]
        out += [e for prefix, e in self.globs if vector_id.startswith(prefix) and e.matches(vector_id, op_name)]
        if self.by_scope and scope:
            for kind in SCOPES:
                out += [e for e in self.by_scope.get((kind, scope.get(kind)), ()) if e._op.match(op_name)]
        return out


@dataclass
class Advice:
    stale: list = field(default_factory=list)      # entries that matched nothing although their scope was run
    unchecked: list = field(default_factory=list)  # entries whose scope the loaded corpus does not hold
    add: list = field(default_factory=list)        # lines to add
    remove: list = field(default_factory=list)     # lines to remove


class CorpusScope:
    """What the loaded corpus holds, to tell a stale entry from one about vectors this corpus does not have."""

    def __init__(self, catalog):
        self.catalog = catalog      # harness.corpus_cache.Catalog: the whole loaded corpus, by id

    # Built on first use: most runs have no unmatched entry to ask about.
    @functools.cached_property
    def ids(self):
        return set(self.catalog.meta)

    @functools.cached_property
    def prefixes(self):
        """Every dotted prefix of every id: 'int.fixint' is held when any 'int.fixint.*' vector is."""
        return {vid[:i] for vid in self.ids for i, c in enumerate(vid) if c == "."}

    @functools.cached_property
    def names(self):
        return {(kind, name) for vid in self.catalog.meta for kind, name in self.catalog.scope(vid).items()}

    def holds(self, entry):
        """Whether the corpus holds the entry's scope: its family / era / format; for an id, the id or a sibling
        (a vector under the same dotted parent, so a renamed vector's entry is stale); for a glob, a match."""
        if entry.scope:
            return entry.scope in self.names
        if entry.exact_id:
            parent = entry.id_glob.rsplit(".", 1)[0]
            return entry.id_glob in self.ids or parent in self.prefixes
        return any(entry._id.match(vid) for vid in self.ids)     # an id glob


def apply(entries, verdicts, full_run, scope_of=None, corpus_scope=None):
    """Turns matched verdicts into xfail / xpass (in place) and says which lines to add and remove.
    scope_of: vector id -> {'family', 'era', 'format'} (for scoped entries); corpus_scope: a CorpusScope."""
    mark(entries, verdicts, scope_of)
    return advise(entries, verdicts, full_run, corpus_scope)


def mark(entries, verdicts, scope_of=None):
    """apply()'s first half, once per runner: matched verdicts become xfail / xpass, each entry records its matches."""
    index = Index(entries)
    scoped = bool(index.by_scope)
    for v in verdicts if entries else ():
        if v.verdict in ("info", "unclaimed"):  # never failures (impl level, not claimed): never expected to fail
            continue
        hits = index.hits(v.vector, v.op, scope_of(v.vector) if scoped and scope_of else None)
        for e in hits:
            e.matched.append(v)
        if hits and v.verdict != "abandoned":     # an op never sent says nothing for or against the entry
            first = min(hits, key=lambda e: e.line_no)
            v.expectation = f"{first.where}: {first.reason}"
            v.verdict = "xfail" if v.verdict in RAW_FAILING else "xpass"


def advise(entries, verdicts, full_run, corpus_scope=None, counts=None):
    """apply()'s second half, after mark(): the lines to add and remove (stale ones only for a full_run).
    counts: results.counts(verdicts), if made: without a failing verdict, they need not be looked through."""
    advice = Advice()
    for e in entries:
        if not e.matched:
            if corpus_scope is not None and not corpus_scope.holds(e):
                advice.unchecked.append(e)
            elif full_run:
                advice.stale.append(e)
                advice.remove.append(e.text)
        elif any(v.verdict == "xpass" for v in e.matched):
            # Replace the entry by exact lines for what still fails under it.
            advice.remove.append(e.text)
            advice.add += [f"{v.vector}  {v.op}  {e.reason}" for v in e.matched
                           if v.verdict == "xfail" and v.outcome in LISTABLE]
    for v in verdicts if counts is None or any(counts[k] for k in LISTABLE) else ():
        if v.verdict in LISTABLE:
            detail = v.detail if len(v.detail) <= 100 else v.detail[:100] + "..."
            advice.add.append(f"{v.vector}  {v.op}  {v.verdict}: {detail}")
    advice.add = sorted(set(advice.add))
    advice.remove = sorted(set(advice.remove))
    return advice
