"""Loads corpus files, refuses invalid ones, and selects vectors by id."""

import fnmatch
import json
from dataclasses import dataclass, field
from pathlib import Path

from harness import schemas


class CorpusError(Exception):
    """The corpus cannot be run; the message names the file and JSON path."""


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
        paths = sorted(p for p in path.glob("*.json") if p.name != "manifest.json")   # see harness/manifest.py
        if not paths:
            raise CorpusError(f"{path}: no *.json corpus files")
    elif path.is_file():
        paths = [path]
    else:
        raise CorpusError(f"{path}: no such file or directory")

    corpus = Corpus()
    seen = {}
    for p in paths:
        try:
            with open(p, encoding="utf-8") as f:
                data = json.load(f)
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
            raise CorpusError(f"{p}: not a readable JSON file: {e}") from None
        problems = [] if schemas.is_valid("corpus.schema.json", "", data) else _problems(data)
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
