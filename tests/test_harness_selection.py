"""Fast, forgiving reruns: the validated-corpus cache, close-match suggestions, --family, the -k family hint."""

import json
import os
import shutil
import subprocess

import pytest

from harness import corpus_cache
from harness_fixtures.harness_helpers import CORPUS, HUNG, PY, REPO, run, wait_until


def copy_corpus(tmp_path):
    corpus = tmp_path / "corpus"
    shutil.copytree(CORPUS, corpus)
    return corpus


def test_cache_is_used_when_warm_and_invalidated_by_any_change(tmp_path):
    corpus, cache = copy_corpus(tmp_path), tmp_path / "cache"
    cold = run(tmp_path / "1", "--case", "basic.nil", "--cache-dir", str(cache), corpus=corpus)
    assert cold.code == 0 and "validated before" not in cold.stderr
    assert len(list(cache.glob("*.json"))) == 1
    warm = run(tmp_path / "2", "--case", "basic.nil", "--cache-dir", str(cache), corpus=corpus)
    assert warm.code == 0 and "validated before (cache" in warm.stderr
    assert warm.report["verdicts"] == [dict(v) for v in cold.report["verdicts"]]
    # One byte changed (an invalid era) in one file: a new key, so the file is validated again and refused.
    path = corpus / "reject.json"
    path.write_text(path.read_text().replace('"era": "msgpack"', '"era": "msgpakc"', 1))
    changed = run(tmp_path / "3", "--case", "basic.nil", "--cache-dir", str(cache), corpus=corpus)
    assert changed.code == 2 and "does not match schema/corpus.schema.json" in changed.stderr
    # --no-cache validates and writes nothing.
    fresh = tmp_path / "fresh"
    assert run(tmp_path / "4", "--no-cache", "--cache-dir", str(fresh), corpus=CORPUS).code == 0
    assert not fresh.exists()


def test_a_cached_catalog_names_this_runs_files_not_those_of_the_run_that_validated_them(tmp_path):
    first, cache = copy_corpus(tmp_path / "a"), tmp_path / "cache"
    second = copy_corpus(tmp_path / "b")        # the same bytes, so the same cache key
    assert run(tmp_path / "1", "--cache-dir", str(cache), corpus=first).code == 0
    warm = run(tmp_path / "2", "--cache-dir", str(cache), corpus=second)
    assert warm.code == 0 and "validated before (cache" in warm.stderr
    assert sorted(f["path"] for f in warm.report["corpus"]["files"]) == sorted(str(p) for p in second.glob("*.json")
                                                                              if p.name != "manifest.json")


def hashed(corpus, cache):
    """The names of the files corpus_cache.digests read and hashed (not taken from the stat cache)."""
    return sorted(name for name, (_, data) in corpus_cache.digests(corpus, cache).items() if data is not None)


def clock_past(corpus):
    """Waits until the file clock has ticked past every corpus file's mtime and ctime (a file written from now on
    has newer times) and so has the clock a digest's time is taken from (time.time_ns, never behind the file clock):
    with RACY_NS 0 the files are then not racy, and a write to one of them changes its ctime."""
    probe = corpus.parent / "clock-probe"
    newest = max(max(p.stat().st_mtime_ns, p.stat().st_ctime_ns) for p in corpus.glob("*.json"))

    def ticked():
        probe.write_bytes(b"")
        return probe.stat().st_ctime_ns > newest
    wait_until(ticked, "the file clock to pass the corpus files' times")


def test_unchanged_files_are_not_hashed_again_but_any_write_is_caught(tmp_path, monkeypatch):
    corpus, cache = copy_corpus(tmp_path), tmp_path / "cache"
    files = sorted(p.name for p in corpus.glob("*.json"))
    # Racy: written less than RACY_NS before it was hashed, so hashed again (a write in the same clock tick
    # would not have changed its times). RACY_NS an hour: however slow this machine is, the files stay racy.
    monkeypatch.setattr(corpus_cache, "RACY_NS", 3600 * 10**9)
    assert hashed(corpus, cache) == files
    clock_past(corpus)
    assert hashed(corpus, cache) == files
    monkeypatch.setattr(corpus_cache, "RACY_NS", 0)
    assert hashed(corpus, cache) == []
    # The same size and the mtime set back: ctime (which no one can set) says it was written.
    path = corpus / "reject.json"
    st = path.stat()
    path.write_text(path.read_text().replace('"era": "msgpack"', '"era": "msgpakc"', 1))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert path.stat().st_size == st.st_size and path.stat().st_mtime_ns == st.st_mtime_ns
    assert hashed(corpus, cache) == ["reject.json"]
    # A cached catalog reads the files it needs only when asked, and checks them against the digest it used.
    shutil.copy(CORPUS / "reject.json", path)
    clock_past(corpus)
    corpus_cache.open_corpus(corpus, cache)
    catalog, how = corpus_cache.open_corpus(corpus, cache)
    assert how == "cached" and catalog.vectors(["basic.nil"])[0]["id"] == "basic.nil"
    basic = corpus / "basic.json"
    catalog, _ = corpus_cache.open_corpus(corpus, cache)
    basic.write_text(basic.read_text().replace('"basic.nil"', '"basic.nip"', 1))
    with pytest.raises(corpus_cache.corpus_mod.CorpusError, match="basic.json: changed while"):
        catalog.vectors(["basic.nil"])


def test_a_file_changed_with_its_size_and_mtime_kept_is_named_by_the_manifest_check(tmp_path, monkeypatch):
    from test_release_gate import corpus_with_manifest
    corpus, cache = corpus_with_manifest(tmp_path), tmp_path / "cache"
    monkeypatch.setattr(corpus_cache, "RACY_NS", 0)
    clock_past(corpus)
    assert run(tmp_path / "1", "--cache-dir", str(cache), corpus=corpus).code == 0
    assert run(tmp_path / "2", "--cache-dir", str(cache), corpus=corpus).code == 0
    assert hashed(corpus, cache) == []
    path = corpus / "basic.json"
    st = path.stat()
    path.write_text(path.read_text().replace('"1.0.0"', '"1.0.1"', 1))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    r = run(tmp_path / "3", "--cache-dir", str(cache), corpus=corpus)
    assert r.code == 2 and "changed: basic.json (sha256 " in r.stderr, r.stderr


@pytest.mark.parametrize("text", ["not json", '{"format": 1, "stats": []}', '{"format": 2, "stats": {}}',
                                  "one bad entry"])
def test_a_corrupt_or_foreign_stat_cache_is_ignored(tmp_path, monkeypatch, text):
    corpus, cache = copy_corpus(tmp_path), tmp_path / "cache"
    monkeypatch.setattr(corpus_cache, "RACY_NS", 0)
    clock_past(corpus)
    hashed(corpus, cache)
    assert hashed(corpus, cache) == []
    stats = cache / corpus_cache.STATS
    stored = json.loads(stats.read_text())
    if text == "one bad entry":     # among good ones: none is trusted
        stored["stats"]["/x"] = [1, 2, 3, 4, 5, 6, "00"]
        text = json.dumps(stored)
    stats.write_text(text)
    assert hashed(corpus, cache) == sorted(p.name for p in corpus.glob("*.json"))


def test_a_released_catalog_keeps_no_file_bytes(tmp_path):
    """verify releases the catalog's files once the run's vectors are loaded (the bytes were its largest part)."""
    corpus_cache.open_corpus(CORPUS, tmp_path / "cache")
    catalog, how = corpus_cache.open_corpus(CORPUS, tmp_path / "cache")
    assert how == "cached" and catalog.vectors(["basic.nil"])[0]["id"] == "basic.nil"
    catalog.release_files()
    assert catalog._loader is None
    with pytest.raises(RuntimeError, match="after release_files"):
        catalog.vectors(["basic.nil"])
    assert catalog.scope("basic.nil")["family"] and "basic.nil" in catalog.ids     # what a run still asks


def test_warm_case_rerun_with_the_python_runner_uses_the_cache(tmp_path):
    """The rerun as a user types it (harness and Python runner as processes) reads the cache the first run filled.
    Its cost (goal: under 1 s of CPU) is measured by bench/rerun_speed.py, not asserted here: a busy machine would
    decide a timed assert."""
    command = [PY, "-m", "harness", "verify", "--runners", "python", "--case", "int.uint64.max", "--no-matrix",
               "--out", str(tmp_path / "out"), "--cache-dir", str(tmp_path / "cache")]
    cold = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=HUNG)     # fills the cache
    assert cold.returncode == 0 and "validated before" not in cold.stderr, cold.stdout + cold.stderr
    warm = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=HUNG)
    assert warm.returncode == 0 and "validated before" in warm.stderr, warm.stdout + warm.stderr
    assert warm.stdout.rstrip().splitlines()[-1] == cold.stdout.rstrip().splitlines()[-1]


def test_unknown_ids_and_runners_get_close_matches(tmp_path):
    r = run(tmp_path, "--case", "basic.int.smal", "--case", "basic.nil")
    assert r.code == 0
    assert "harness: note: --case basic.int.smal: no such vector (did you mean basic.int.small" in r.stderr
    r = run(tmp_path, "--case", "basic.int.smal")
    assert r.code == 2 and "matches no vector" in r.stderr
    r = run(tmp_path, "--dump", "basic.nill")
    assert r.code == 2 and "--dump basic.nill: no such vector (did you mean basic.nil" in r.stderr
    r = run(tmp_path, runners="oracel", commands=[], runners_dir=REPO / "runners")
    r = run(tmp_path, runners="pyton", commands=[], runners_dir=REPO / "runners")
    assert r.code == 2 and "unknown runner 'pyton' (did you mean 'python'?" in r.stderr


def test_family_selector_and_the_k_family_hint(tmp_path):
    r = run(tmp_path, "--family", "reject")
    assert {vid for vid, _ in r.verdicts()} == {"reject.truncated.str", "reject.reserved", "reject.encode.int-too-big",
                                                "reject.impl.depth"}
    assert r.report["corpus"]["selection"]["patterns"] == ["family:reject"]
    assert r.report["corpus"]["selection"]["full"] is False
    r = run(tmp_path, "--family", "rejekt")
    assert r.code == 2 and "--family rejekt: no such family (did you mean reject?)" in r.stderr
    # 'basic.*' picks every basic vector: no hint. 'basic.int*' is not a family name: no hint either.
    assert "use --family" not in run(tmp_path, "-k", "basic.*").stderr
    assert "use --family" not in run(tmp_path, "-k", "reject.r*").stderr     # no family is called 'reject.r'
    family_like = run(tmp_path, "-k", "reject.reserved", "-k", "basic")
    assert ("harness: note: -k basic matches 0 vector ids, but the family 'basic' has 12 vectors" in family_like.stderr
            and "use --family basic" in family_like.stderr)
