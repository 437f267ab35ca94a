"""The Ignite 3 thin-client wire-value golden vectors, for an implementer's own unit tests.

    import ignite_wire_corpus as iwc
    corpus = iwc.load()                       # the corpus in this package (or iwc.load("path/to/vectors"))
    for v in corpus.vectors(family="bt-decimal", kind="value"):
        assert my_decode(v.canonical) == ...  # v.values: the value notation (schema/value.schema.json)

The corpus files' structure is schema/corpus.schema.json of the conformance suite; Vector.raw is a vector as it
stands there. The skip-file format (SkipList) is docs/skip-file.md.
"""
import hashlib
import json
import re
from pathlib import Path

__all__ = ["load", "Corpus", "Vector", "SkipList", "CorpusIntegrityError", "SkipListError", "EMBEDDED"]

EMBEDDED = Path(__file__).resolve().parent / "vectors"
MANIFEST = "manifest.json"


class CorpusIntegrityError(Exception):
    """The corpus directory is not the one its manifest.json describes (changed, missing or extra files)."""


class SkipListError(ValueError):
    """A skip file line that does not follow the format (the message names the source and line)."""


def load(directory=None):
    """The corpus embedded in this package, or the corpus directory given; verified against its manifest."""
    return Corpus(EMBEDDED if directory is None else directory)


class Vector:
    """One vector; `raw` is its JSON object (schema/corpus.schema.json)."""

    __slots__ = ("raw", "family")

    def __init__(self, raw, family):
        self.raw, self.family = raw, family

    id = property(lambda self: self.raw["id"])
    kind = property(lambda self: self.raw["kind"], doc="'value', 'decode-reject' or 'encode-reject'")
    era = property(lambda self: self.raw["era"])
    format = property(lambda self: self.raw.get("format", "msgpack"), doc="absent in the file means 'msgpack'")
    rules = property(lambda self: list(self.raw["rules"]))
    level = property(lambda self: self.raw["level"])
    description = property(lambda self: self.raw["description"])
    values = property(lambda self: self.raw.get("values"), doc="the value notation, or None (decode-reject)")
    error = property(lambda self: self.raw.get("error"), doc="the must-reject error class, or None (value)")
    frame = property(lambda self: self.raw.get("frame"), doc="a frame vector's message kind (spec.md 11), or None")
    features = property(lambda self: list(self.raw.get("features", [])), doc="a frame's negotiated feature names")
    fields = property(lambda self: self.raw.get("fields"), doc="a frame vector's named fields (its values), or None")

    @property
    def canonical(self):
        """A value vector's canonical bytes; None for the other kinds."""
        return bytes.fromhex(self.raw["canonical"]) if self.kind == "value" else None

    @property
    def bytes(self):
        """The bytes a decoder reads: a value vector's canonical bytes, a decode-reject's bytes; None for an
        encode-reject (it has values only)."""
        return bytes.fromhex(self.raw["canonical" if self.kind == "value" else "hex"]) \
            if self.kind != "encode-reject" else None

    @property
    def variants(self):
        """label -> bytes: other encodings of a value vector's values ({} for the other kinds)."""
        return {v["label"]: bytes.fromhex(v["hex"]) for v in self.raw.get("variants", ())}

    @property
    def ops(self):
        """The operation names the harness runs and a skip file's OP-GLOB matches."""
        if self.kind == "value":
            return ["encode", "decode"] + [f"decode[{v['label']}]" for v in self.raw["variants"]]
        return ["reject"] if self.kind == "decode-reject" else ["reject-encode"]

    def __repr__(self):
        return f"Vector({self.id!r}, {self.kind})"


class Corpus:
    """A corpus directory, verified against its manifest.json when made; its files are parsed on first use."""

    def __init__(self, directory):
        self.directory = Path(directory)
        try:
            manifest_bytes = (self.directory / MANIFEST).read_bytes()
        except OSError as e:
            raise CorpusIntegrityError(f"{self.directory}: no readable {MANIFEST} ({e.strerror})") from None
        self.manifest_sha256 = hashlib.sha256(manifest_bytes).hexdigest()
        try:
            self.manifest = json.loads(manifest_bytes)
        except ValueError as e:
            raise CorpusIntegrityError(f"{self.directory / MANIFEST}: not JSON ({e})") from None
        self.version = self.manifest["corpus_version"]
        self.spec_version = self.manifest["spec_version"]
        self.counts = {f["path"]: f["vectors"] for f in self.manifest["files"]}
        self._verify()
        self._vectors = self._by_id = None

    def _verify(self):
        listed = {f["path"]: f for f in self.manifest["files"]}
        present = {p.name for p in self.directory.glob("*.json")} - {MANIFEST}
        problems = [f"{n}: missing (listed in {MANIFEST})" for n in sorted(set(listed) - present)]
        problems += [f"{n}: extra (not listed in {MANIFEST})" for n in sorted(present - set(listed))]
        for name in sorted(set(listed) & present):
            data = (self.directory / name).read_bytes()
            digest = hashlib.sha256(data).hexdigest()
            if len(data) != listed[name]["bytes"] or digest != listed[name]["sha256"]:
                problems.append(f"{name}: sha256 {digest} ({len(data)} bytes), {MANIFEST} says "
                                f"{listed[name]['sha256']} ({listed[name]['bytes']} bytes)")
        if problems:
            raise CorpusIntegrityError(f"{self.directory} is not corpus {self.version} as its {MANIFEST} "
                                       f"describes it; refusing a tampered or partial copy:\n  "
                                       + "\n  ".join(problems))

    def _all(self):
        if self._vectors is None:
            out = []
            for name in self.counts:
                data = json.loads((self.directory / name).read_bytes())
                out += [Vector(v, data["family"]) for v in data["vectors"]]
            self._vectors = out
        return self._vectors

    def vectors(self, family=None, era=None, format=None, kind=None, rule=None):
        """The vectors (in manifest file order) matching every filter given; rule: one of the vector's rules."""
        for v in self._all():
            if ((family is None or v.family == family) and (era is None or v.era == era)
                    and (format is None or v.format == format) and (kind is None or v.kind == kind)
                    and (rule is None or rule in v.raw["rules"])):
                yield v

    def vector(self, vector_id):
        """The vector with this id (KeyError when the corpus has none)."""
        if self._by_id is None:
            self._by_id = {v.id: v for v in self._all()}
        return self._by_id[vector_id]

    def __iter__(self):
        return iter(self._all())

    def __len__(self):
        return sum(self.counts.values())


_SCOPED = re.compile(r"^(family|era|format):([a-z0-9][a-z0-9._-]*)$")
_ID_GLOB = re.compile(r"^[a-z0-9*][a-z0-9._*-]*$")
_OP = re.compile(r"^(encode|decode|decode\[[a-z0-9]+([.-][a-z0-9]+)*\]|reject|reject-encode)$")
_SAMPLE_OPS = ("encode", "decode", "decode[x]", "reject", "reject-encode")


def _glob(pattern):
    """'*' is the only wildcard; the whole name must match."""
    return re.compile("^" + ".*".join(re.escape(part) for part in pattern.split("*")) + "$")


class SkipList:
    """A skip file (docs/skip-file.md): `SCOPE  OP-GLOB  reason` lines, the first matching line wins."""

    def __init__(self, entries):
        self.entries = entries      # [(line_no, scope, op_glob, reason)]

    @classmethod
    def load(cls, path):
        return cls.parse(Path(path).read_text(encoding="utf-8"), str(path))

    @classmethod
    def parse(cls, text, source="<skip list>"):
        entries = []
        for n, line in enumerate(text.splitlines(), 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            fields = line.split(None, 2)
            if len(fields) < 3:
                raise SkipListError(f"{source}:{n}: expected 'SCOPE  OP-GLOB  reason' (the reason is "
                                    f"mandatory), got: {line}")
            scope, op_glob, reason = fields
            scoped = _SCOPED.match(scope)
            if not scoped and not _ID_GLOB.match(scope):
                raise SkipListError(f"{source}:{n}: '{scope}' is not a vector id, id glob, family:NAME, "
                                    f"era:ERA or format:FORMAT")
            op_re = _glob(op_glob)
            if not (_OP.match(op_glob.replace("*", "x")) or any(op_re.match(o) for o in _SAMPLE_OPS)):
                raise SkipListError(f"{source}:{n}: '{op_glob}' is not an op or op glob (encode, decode, "
                                    f"decode[<label>], reject, reject-encode)")
            match = ((scoped.group(1), scoped.group(2)) if scoped else _glob(scope))
            entries.append((n, match, op_re, reason))
        return cls(entries)

    def reason(self, vector, op):
        """The reason of the first line matching the vector (a Vector) and op name, or None."""
        for _, match, op_re, reason in self.entries:
            if not op_re.match(op):
                continue
            if isinstance(match, tuple):
                if getattr(vector, match[0]) == match[1]:
                    return reason
            elif match.match(vector.id):
                return reason
        return None
