"""Loads corpus files, refuses invalid ones, and selects vectors by id."""

import fnmatch
import json
import os
import stat
import sys
from dataclasses import dataclass, field
from pathlib import Path

from harness import schemas


class CorpusError(Exception):
    """The corpus cannot be run; the message names the file and JSON path."""


# Limits on what the harness reads (runners/PROTOCOL.md, "Limits"), checked before reading: the largest corpus
# file is under 3 MB and its longest hex string under 1 MB. Nesting is limited by the harness's recursion limit
# (20,000 levels), integers by Python's 4,300 digits.
MAX_FILE_BYTES = 32 << 20
MAX_HEX_CHARS = 8 << 20


def checked_file(p, root=None):
    """p, if it is a regular file of at most MAX_FILE_BYTES (a link: to a regular file inside root); else
    CorpusError. FIFOs, devices and links out of the corpus directory are never opened."""
    try:
        if root is not None and p.is_symlink():
            target = p.resolve()
            if Path(root).resolve() not in target.parents:
                raise CorpusError(f"{p}: a link out of the corpus directory (to {target}); not read")
        info = os.stat(p)
    except OSError as e:
        raise CorpusError(f"{p}: cannot read: {e.strerror}") from None
    if not stat.S_ISREG(info.st_mode):
        raise CorpusError(f"{p}: not a regular file (a FIFO, device or directory); not read")
    if info.st_size > MAX_FILE_BYTES:
        raise CorpusError(f"{p}: {info.st_size} bytes, over the limit of {MAX_FILE_BYTES} bytes per corpus file")
    return p


@dataclass
class Corpus:
    files: list = field(default_factory=list)      # [{"path", "corpus_version", "family", "vectors"}]
    vectors: list = field(default_factory=list)    # every vector, sorted by id
    family_of: dict = field(default_factory=dict)  # vector id -> its file's family
    file_of: dict = field(default_factory=dict)    # vector id -> index of its file in files
    position_of: dict = field(default_factory=dict)  # vector id -> its index in its file's "vectors"

    @property
    def version(self):
        versions = sorted({f["corpus_version"] for f in self.files})
        return versions[0] if versions else None


def load(path):
    path = Path(path)
    if path.is_dir():
        paths = sorted(checked_file(p, path) for p in path.glob("*.json") if p.name != "manifest.json")
        if not paths:                                           # manifest.json: see harness/manifest.py
            raise CorpusError(f"{path}: no *.json corpus files")
    elif path.exists():
        paths = [checked_file(path)]
    else:
        raise CorpusError(f"{path}: no such file or directory")

    corpus = Corpus()
    seen = {}
    for p in paths:
        try:
            with open(p, encoding="utf-8") as f:
                data = json.load(f)
        except (OSError, ValueError) as e:     # ValueError: not UTF-8, not JSON, an integer over 4,300 digits
            raise CorpusError(f"{p}: not a readable JSON file: {str(e).splitlines()[0][:300]}") from None
        except RecursionError:
            raise CorpusError(f"{p}: nested deeper than the harness reads ({sys.getrecursionlimit()} levels)") \
                from None
        _check_hex_sizes(p, data)
        try:
            problems = [] if schemas.is_valid("corpus.schema.json", "", data) else _problems(data)
        except RecursionError:
            raise CorpusError(f"{p}: nested too deep to check ({sys.getrecursionlimit()} levels)") from None
        if problems:
            raise CorpusError(f"{p}: does not match schema/corpus.schema.json:\n  " + "\n  ".join(problems))
        for i, vector in enumerate(data["vectors"]):
            vid = vector["id"]
            if vid in seen:
                raise CorpusError(f"{p}: $.vectors[{i}].id: duplicate id {vid!r} (also in {seen[vid]})")
            seen[vid] = p
            labels = [v["label"] for v in vector.get("variants", [])]
            if len(labels) != len(set(labels)):
                raise CorpusError(f"{p}: $.vectors[{i}].variants: labels are not unique in {vid!r}")
            corpus.vectors.append(vector)
            corpus.family_of[vid] = data["family"]
            corpus.file_of[vid] = len(corpus.files)
            corpus.position_of[vid] = i
        corpus.files.append({"path": str(p), "corpus_version": data["corpus_version"],
                             "family": data["family"], "vectors": len(data["vectors"])})
    versions = {f["corpus_version"] for f in corpus.files}
    if len(versions) > 1:
        raise CorpusError("corpus files disagree on corpus_version: " +
                          ", ".join(f"{f['path']}={f['corpus_version']}" for f in corpus.files))
    corpus.vectors.sort(key=lambda v: v["id"])
    return corpus


def _check_hex_sizes(p, data):
    """The bytes of each vector (canonical, hex, variants) are at most MAX_HEX_CHARS hex digits: every request
    carrying them must fit a runner's line limit."""
    vectors = data.get("vectors") if isinstance(data, dict) else None
    for i, v in enumerate(vectors if isinstance(vectors, list) else []):
        if not isinstance(v, dict):
            continue
        texts = [("canonical", v.get("canonical")), ("hex", v.get("hex"))]
        variants = v.get("variants")
        texts += [(f"variants[{j}].hex", w.get("hex")) for j, w in enumerate(variants if isinstance(variants, list)
                                                                            else []) if isinstance(w, dict)]
        for where, text in texts:
            if isinstance(text, str) and len(text) > MAX_HEX_CHARS:
                raise CorpusError(f"{p}: $.vectors[{i}].{where}: {len(text)} hex digits, over the limit of "
                                  f"{MAX_HEX_CHARS}")


def _problems(data):
    """Readable schema errors for an invalid file. jsonschema is slow, so it only sees the vectors that the quick
    check finds wrong, plus the file with its vectors left out."""
    problems = []
    vectors = data.get("vectors") if isinstance(data, dict) else None
    if isinstance(vectors, list):
        bad = [i for i, v in enumerate(vectors) if not schemas.is_valid("corpus.schema.json", "/$defs/vector", v)]
        vector_validator = schemas.validator("corpus.schema.json", "/$defs/vector")
        for i in bad[:5]:
            problems += [f"$.vectors[{i}]{line[1:]}" for line in schemas.describe_errors(vector_validator, vectors[i], 3)]
        if len(bad) > 5:
            problems.append(f"... and {len(bad) - 5} more invalid vectors")
        data = dict(data, vectors=[None])
    root = schemas.load("corpus.schema.json")
    without_vectors = dict(root, properties=dict(root["properties"], vectors={"type": "array", "minItems": 1}))
    import jsonschema     # only for an invalid file (see harness/schemas.py)

    problems += schemas.describe_errors(jsonschema.Draft202012Validator(without_vectors), data)
    return problems or ["invalid (no details)"]


def select(vectors, cases=(), patterns=()):
    """Vectors whose id is one of cases or matches one of the fnmatch patterns; all of them when neither is given."""
    if not cases and not patterns:
        return list(vectors)
    wanted = set(cases)
    return [v for v in vectors
            if v["id"] in wanted or any(fnmatch.fnmatchcase(v["id"], p) for p in patterns)]
