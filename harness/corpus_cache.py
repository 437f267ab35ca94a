"""A validated-corpus cache, so that a rerun of one vector (--case ID, -k GLOB) costs milliseconds, not seconds.

Validating the whole corpus (schema, duplicate ids, semantic lint) takes seconds. After a corpus has passed, its
catalog (every id with its file, era, format and op names; the files' families and versions) is stored under a
key made of the SHA-256 of every corpus file's bytes and of the code and schemas that validated them: any change
to either gives another key, so a stale catalog is never used. A warm run hashes the files (tens of ms), reads
the catalog, and parses only the files holding the selected vectors, without validating them again.

A file is hashed again only when it may have changed since it was last hashed, as git's index decides: its
digest is kept in the cache directory with its (size, mtime, ctime, inode, device), and reused while all of them
are unchanged and the file was not "racy" (written shortly before it was hashed: a later write within the same
clock tick would leave its times unchanged). Any write changes ctime, which no user can set back.
"""

import hashlib
import json
import os
import stat
import tempfile
import time
from pathlib import Path

from harness import corpus as corpus_mod
from harness import corpus_lint
from harness import ops as ops_mod
from harness import schemas

FORMAT = 1
KEEP = 8        # catalogs kept per cache directory (the newest)
STATS = "file-digests.stat"     # the files' digests by (size, times, inode): see _digests; not *.json (catalogs)
STATS_KEEP = 300                # entries kept (this run's first): corpora under test come and go
# A file is racy (hashed again) unless its mtime and ctime are this much older than when its digest was taken:
# file times come from a coarse clock (a tick behind time.time_ns(); FAT has 2 s mtimes).
RACY_NS = 3_000_000_000
# What decides whether a corpus is valid: a change to any of these invalidates every catalog.
_VALIDATORS = ["harness/corpus.py", "harness/corpus_cache.py", "harness/corpus_lint.py", "harness/id_prefixes.json",
               "harness/fast_schema.py", "harness/schemas.py", "harness/ops.py"]


class Catalog:
    """The whole corpus by id, without the vectors' bodies: vectors(ids) loads the ones a run needs."""

    def __init__(self, files, meta, loader, key=None):
        self.files = files          # [{"path", "corpus_version", "family", "vectors"}] as corpus.Corpus.files
        self.meta = meta            # id -> [file index, era, format, [op names]], sorted by id
        self._loader = loader       # [file index] -> {id: vector}
        self.key = key              # the cache key of these files (None without a cache): see plan_cache.py

    @property
    def version(self):
        versions = sorted({f["corpus_version"] for f in self.files})
        return versions[0] if versions else None

    @property
    def ids(self):
        return list(self.meta)

    def family(self, vector_id):
        return self.files[self.meta[vector_id][0]]["family"]

    def scope(self, vector_id):
        _, era, fmt, _ = self.meta[vector_id]
        return {"family": self.family(vector_id), "era": era, "format": fmt}

    def op_keys(self):
        return [(vid, op) for vid, m in self.meta.items() for op in m[3]]

    def vectors(self, ids):
        """The vectors with these ids, sorted by id."""
        if self._loader is None:
            raise RuntimeError("catalog.vectors() after release_files()")
        wanted = sorted(set(ids))
        found = self._loader(sorted({self.meta[vid][0] for vid in wanted}))
        return [found[vid] for vid in wanted]

    def release_files(self):
        """Drops what vectors() loads from: the corpus files' bytes (a cached catalog holds them all, 33 MB for
        corpus 1.2.0) or the parsed corpus. For a run that has loaded the vectors it needs; vectors() fails after."""
        self._loader = None


def open_corpus(path, cache_dir=None, digests=None):
    """(Catalog, 'cached' | 'validated'). Without cache_dir, or when the files cannot be hashed, it validates.
    `digests`: what digests(path) returned, when the caller has it already (the manifest check hashed them)."""
    path = Path(path)
    if cache_dir and digests is None:
        digests = _digests(path, cache_dir)
    elif not cache_dir:
        digests = None
    if digests is not None:
        key = _key(digests)
        stored = _read(Path(cache_dir) / f"{key}.json")
        if stored is not None:
            names = [f["name"] for f in stored["files"]]

            def parse(indexes):
                out = {}
                for i in indexes:
                    for v in json.loads(_bytes(path, names[i], digests))["vectors"]:
                        out[v["id"]] = v
                return out
            # The paths are this run's (--corpus as given), not those of the run that validated the same bytes.
            files = [{"path": str(path / f["name"] if path.is_dir() else path),
                      **{k: f[k] for k in ("corpus_version", "family", "vectors")}} for f in stored["files"]]
            return Catalog(files, stored["meta"], parse, key), "cached"
    corpus = corpus_mod.load(path)
    corpus_lint.check(corpus, corpus_mod.CorpusError)
    by_id = {v["id"]: v for v in corpus.vectors}
    meta = {v["id"]: [corpus.file_of[v["id"]], v["era"], v.get("format", "msgpack"),
                      [op.name for op in ops_mod.ops_for(v)]] for v in corpus.vectors}
    catalog = Catalog(corpus.files, meta, lambda indexes: by_id, key if digests is not None else None)
    if digests is not None:
        files = [dict(f, name=Path(f["path"]).name) for f in corpus.files]
        _write(Path(cache_dir), f"{key}.json", {"format": FORMAT, "files": files, "meta": meta})
    return catalog, "validated"


def digests(path, cache_dir=None):
    """{file name: (sha256, bytes or None)} of the corpus files, hashed once for the manifest check and the key.
    With cache_dir, a file unchanged since its digest was stored there is not read (None: read when needed)."""
    return _digests(Path(path), cache_dir and Path(cache_dir))


def _digests(path, cache_dir=None):
    """{file name: (sha256, bytes or None)} of the files corpus.load reads, or None (not plain files: validate)."""
    if path.is_dir():
        paths = sorted(p for p in path.glob("*.json") if p.name != "manifest.json")
    elif path.is_file():
        paths = [path]
    else:
        return None
    known = _read_stats(cache_dir) if cache_dir else {}
    seen, hashed = {}, False
    out = {}
    for p in paths:
        try:
            st = os.lstat(p)
        except OSError:
            return None
        if not stat.S_ISREG(st.st_mode) or st.st_size > corpus_mod.MAX_FILE_BYTES:
            return None     # anything unusual goes through the full, guarded load (harness/corpus.py)
        where = os.path.abspath(p)
        fingerprint = [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev]
        entry = known.get(where)
        if entry and entry[:5] == fingerprint and max(st.st_mtime_ns, st.st_ctime_ns) < entry[5] - RACY_NS:
            out[p.name] = (entry[6], None)
            seen[where] = entry
            continue
        # Taken before the read: a write during or after it gives a ctime at least this recent (see RACY_NS).
        taken = time.time_ns()
        data = p.read_bytes()
        out[p.name] = (hashlib.sha256(data).hexdigest(), data)
        seen[where] = fingerprint + [taken, out[p.name][0]]
        hashed = True
    if hashed and cache_dir:
        for where, entry in known.items():
            if len(seen) >= STATS_KEEP:
                break
            seen.setdefault(where, entry)
        _write(cache_dir, STATS, {"format": FORMAT, "stats": seen}, prune=False)
    return out


def _read_stats(cache_dir):
    """{absolute path: [size, mtime_ns, ctime_ns, inode, device, taken_ns, sha256]}; {} for a missing, corrupt or
    foreign file (everything is hashed then): an entry that is not exactly of this form is never trusted."""
    stored = _read(cache_dir / STATS)
    stats = stored.get("stats") if stored else None
    if not isinstance(stats, dict):
        return {}
    for where, entry in stats.items():
        if not (isinstance(entry, list) and len(entry) == 7 and all(type(n) is int for n in entry[:6])
                and isinstance(entry[6], str) and len(entry[6]) == 64
                and all(c in "0123456789abcdef" for c in entry[6])):
            return {}
    return stats


def _bytes(path, name, digests):
    """A corpus file's bytes as hashed: read now if the hashing reused a stored digest, and checked against it."""
    digest, data = digests[name]
    if data is None:
        data = (path / name if path.is_dir() else path).read_bytes()
        if hashlib.sha256(data).hexdigest() != digest:
            raise corpus_mod.CorpusError(f"{name}: changed while the harness was running; run it again")
    return data


def _key(digests):
    h = hashlib.sha256(f"corpus-cache {FORMAT}\n".encode())
    for name in _VALIDATORS:
        source = schemas.REPO_ROOT / name
        if source.is_file():
            h.update(f"{name} {hashlib.sha256(source.read_bytes()).hexdigest()}\n".encode())
    for schema in sorted(schemas.SCHEMA_DIR.glob("*.json")):
        h.update(f"{schema.name} {hashlib.sha256(schema.read_bytes()).hexdigest()}\n".encode())
    for name, (digest, _) in sorted(digests.items()):
        h.update(f"{name} {digest}\n".encode())
    return h.hexdigest()


def _read(path):
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(stored, dict) or stored.get("format") != FORMAT:
        return None
    try:
        os.utime(path)          # recently used: kept by the pruning below
    except OSError:
        pass
    return stored


def _write(directory, name, data, prune=True):
    """Atomically (a reader never sees half a catalog); a cache that cannot be written is no error."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=".json")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f, separators=(",", ":"))
        os.replace(tmp, directory / name)
        if not prune:
            return
        old = sorted(directory.glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True)[KEEP:]
        for p in old:
            p.unlink(missing_ok=True)
    except OSError:
        pass
