"""A cache of the prepared full plan, beside the validated-corpus catalogs (harness/corpus_cache.py): every vector
of the corpus, the encoded request line of every op and its expected answer lines, as made for a full run.

A warm full run then maps one file and unmarshals it instead of parsing the corpus's JSON and encoding tens of
thousands of request and answer lines: 1.0-1.3 s of CPU instead of 1.9-2.6 s (2026-11-24, 86 MB file, load 8).
The key is the catalog's (the corpus files' bytes, the code and schemas that validated them) with the code that
makes the lines (ops.py, judge.py, this file) and the Python version (marshal's format is Python's own): any
change to either gives another key. Only a full run uses it (a --case run reads the files it needs, as before).
Each vector's values stay marshalled, one bytes object each, until judging asks for them (ops.values_of): an
answer that is exactly an expected line (the stored forms include a decode's sorted-keys one) needs none.
"""

import hashlib
import marshal
import mmap
import os
import sys
import tempfile
from pathlib import Path

from harness import judge, schemas
from harness import ops as ops_mod

FORMAT = 2      # 2: values marshalled per vector; decode ops' sorted-keys forms
# Prepared plans kept per cache directory: the newest, as long as they hold KEEP_BYTES together (each is about
# three times the corpus: two or three of corpus 1.2.0). By size, not count: the tiny plans of test corpora that
# share the directory do not push out the real one.
KEEP_BYTES = 256 << 20
SUFFIX = ".plan"
_SOURCES = ["harness/ops.py", "harness/judge.py", "harness/plan_cache.py"]


def key(catalog):
    """The file name of the catalog's prepared plan, or None when the catalog has no cache key."""
    if catalog.key is None:
        return None
    h = hashlib.sha256(f"plan-cache {FORMAT} {sys.version} {marshal.version}\n{catalog.key}\n".encode())
    for name in _SOURCES:
        h.update(f"{name} {hashlib.sha256((schemas.REPO_ROOT / name).read_bytes()).hexdigest()}\n".encode())
    return h.hexdigest() + SUFFIX


def load(cache_dir, catalog):
    """(vectors, plan) of the whole corpus, prepared (request lines and exact answer forms set), or None when the
    cache holds no usable plan for this catalog."""
    name = key(catalog) if cache_dir else None
    if name is None:
        return None
    path = Path(cache_dir) / name
    try:
        with open(path, "rb") as f:
            # Mapped, not read: the unmarshalled objects are the only copy made of the file's bytes.
            with mmap.mmap(f.fileno(), 0, flags=mmap.MAP_PRIVATE | getattr(mmap, "MAP_POPULATE", 0),
                           prot=mmap.PROT_READ) as data:
                stored = marshal.loads(data)
        fmt, vectors, lines, forms = stored
        if fmt != FORMAT:
            return None
        plan = ops_mod.plan(vectors)
        if len(plan) != len(lines) or len(plan) != len(forms):
            return None
        for op, parts, texts in zip(plan, lines, forms):
            op.set_line_parts(parts)
            judge.set_exact_forms(op, texts)
    except (OSError, ValueError, EOFError, TypeError, KeyError, IndexError, AttributeError):
        return None     # unreadable or not what store() writes: the caller makes the plan afresh
    try:
        os.utime(path)      # recently used: kept by the pruning below
    except OSError:
        pass
    return vectors, plan


def texts(plan):
    """What store() keeps of a freshly prepared plan (taken before the run: judging may add answer forms)."""
    return [op.line_parts() for op in plan], [judge.exact_form_texts(op) for op in plan]


def store(cache_dir, catalog, vectors, prepared):
    """Writes the whole corpus's vectors and their plan's texts() (atomically; a cache that cannot be written is
    no error). A file load() could not use is replaced."""
    name = key(catalog) if cache_dir else None
    if name is None:
        return
    directory = Path(cache_dir)
    # Each vector's values marshalled on their own: a run unmarshals those it needs (ops.values_of).
    data = marshal.dumps((FORMAT, [dict(v, values=marshal.dumps(v["values"])) if "values" in v else v
                                   for v in vectors], *prepared))
    try:
        directory.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=SUFFIX)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, directory / name)
        kept = 0
        for p in sorted(directory.glob("*" + SUFFIX), key=lambda p: p.stat().st_mtime, reverse=True):
            kept += p.stat().st_size
            if kept > KEEP_BYTES and p.name != name:
                p.unlink(missing_ok=True)
    except OSError:
        pass
