"""The prepared-plan cache (harness/plan_cache.py): a warm full run takes the vectors, request lines and expected
answer lines from it, and they are exactly what a fresh plan has; a damaged or foreign file is not used."""

import shutil

import pytest

from harness_fixtures.harness_helpers import CORPUS, run
from harness import corpus_cache, judge, ops, plan_cache


def plans(tmp_path):
    """The fixture corpus's catalog, and a fresh (vectors, plan) made as verify makes it."""
    catalog, _ = corpus_cache.open_corpus(CORPUS, tmp_path / "cache")
    vectors = catalog.vectors(catalog.ids)
    plan = ops.plan(vectors)
    judge.prepare(plan, values_json=False)
    return catalog, vectors, plan


def test_a_stored_plan_loads_as_the_fresh_one(tmp_path):
    catalog, vectors, plan = plans(tmp_path)
    assert plan_cache.load(tmp_path / "cache", catalog) is None
    plan_cache.store(tmp_path / "cache", catalog, vectors, plan_cache.texts(plan))
    loaded_vectors, loaded = plan_cache.load(tmp_path / "cache", catalog)
    assert [op.key for op in loaded] == [op.key for op in plan]
    assert all(type(v["values"]) is bytes for v in loaded_vectors if "values" in v), "values stay marshalled"
    for fresh, cached in zip(plan, loaded):
        assert cached._line_parts == fresh.line_parts(), "the request line's parts come from the cache"
        assert cached.request_line(17) == fresh.request_line(17) == ops.encode_line(fresh.request(17))
        assert [form[:-1] for form in cached.exact_forms] == [form[:-1] for form in fresh.exact_forms]
        assert [form[-1] for form in cached.exact_forms] == [form[-1] for form in fresh.exact_forms]    # the pass Outcomes
    decodes = [op for op in loaded if op.cmd == "decode" and op.name != "reject" and op.vector["variants"]]
    shared = {}
    assert decodes and all(shared.setdefault(op.vector_id, op.exact_forms) is op.exact_forms for op in decodes), \
        "a vector's decode ops share one list of forms, as when made afresh"
    assert all(len(op.exact_forms) == 2 for op in decodes), "the sorted-keys form is kept too"
    assert all(type(v["values"]) is bytes for v in loaded_vectors if "values" in v), "none was needed so far"
    for v in loaded_vectors:
        if "values" in v:
            assert ops.values_of(v) is v["values"]
    assert loaded_vectors == vectors


def test_a_damaged_or_foreign_plan_file_is_not_used(tmp_path):
    catalog, vectors, plan = plans(tmp_path)
    plan_cache.store(tmp_path / "cache", catalog, vectors, plan_cache.texts(plan))
    (path,) = (tmp_path / "cache").glob("*" + plan_cache.SUFFIX)
    data = path.read_bytes()
    path.write_bytes(data[:len(data) // 2])
    assert plan_cache.load(tmp_path / "cache", catalog) is None
    path.write_bytes(b"")
    assert plan_cache.load(tmp_path / "cache", catalog) is None
    catalog.key = "another corpus"
    assert plan_cache.key(catalog) != path.name


@pytest.fixture
def loads(monkeypatch):
    """What each plan_cache.load call returned: True for a plan, False for none."""
    results, real = [], plan_cache.load

    def recording(cache_dir, catalog):
        loaded = real(cache_dir, catalog)
        results.append(loaded is not None)
        return loaded

    monkeypatch.setattr(plan_cache, "load", recording)
    return results


def test_a_warm_full_run_uses_the_plan_and_reports_the_same(tmp_path, loads):
    corpus, cache = tmp_path / "corpus", tmp_path / "cache"
    shutil.copytree(CORPUS, corpus)
    cold = run(tmp_path / "1", "--cache-dir", str(cache), corpus=corpus)
    assert cold.code == 0 and len(list(cache.glob("*" + plan_cache.SUFFIX))) == 1
    case = run(tmp_path / "2", "--cache-dir", str(cache), "--case", "basic.nil", corpus=corpus)
    assert case.code == 0
    warm = run(tmp_path / "3", "--cache-dir", str(cache), corpus=corpus)
    assert warm.code == 0 and warm.stdout == cold.stdout
    assert warm.report["verdicts"] == cold.report["verdicts"]
    assert loads == [False, True], "the cold run finds no plan, the --case run asks for none, the warm one uses it"
    # A file the plan cannot come from is passed over: the run makes the plan afresh, with the same verdicts,
    # and stores it again.
    (path,) = cache.glob("*" + plan_cache.SUFFIX)
    path.write_bytes(b"not marshal data")
    again = run(tmp_path / "4", "--cache-dir", str(cache), corpus=corpus)
    assert again.code == 0 and again.report["verdicts"] == cold.report["verdicts"]
    assert run(tmp_path / "5", "--cache-dir", str(cache), corpus=corpus).code == 0
    assert loads[2:] == [False, True]
    # --no-cache reads and writes no plan either.
    fresh = tmp_path / "fresh"
    assert run(tmp_path / "6", "--no-cache", "--cache-dir", str(fresh), corpus=corpus).code == 0
    assert not fresh.exists()


def test_small_plans_do_not_push_out_a_large_one(tmp_path, monkeypatch):
    catalog, vectors, plan = plans(tmp_path)
    cache = tmp_path / "cache"
    plan_cache.store(cache, catalog, vectors, plan_cache.texts(plan))
    (large,) = cache.glob("*" + plan_cache.SUFFIX)
    monkeypatch.setattr(plan_cache, "KEEP_BYTES", large.stat().st_size * 2)
    for other in range(4):      # other corpora's plans, as the tests' fixture corpora write them
        catalog.key = f"corpus {other}"
        plan_cache.store(cache, catalog, vectors[:1], plan_cache.texts(plan[:1]))
    assert large.exists() and len(list(cache.glob("*" + plan_cache.SUFFIX))) == 5
    catalog.key = "a second large one"
    plan_cache.store(cache, catalog, vectors, plan_cache.texts(plan))
    catalog.key = "a third large one"
    plan_cache.store(cache, catalog, vectors, plan_cache.texts(plan))
    assert not large.exists(), "past KEEP_BYTES the oldest plans go"
    assert (cache / plan_cache.key(catalog)).exists()
