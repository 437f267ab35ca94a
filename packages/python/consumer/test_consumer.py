"""A consumer's unit test of the installed ignite-wire-corpus wheel (tests/test_packages_python.py runs it in a
scratch venv). IWC_EXPECTED names the JSON of what to find (tests/package_fixtures/packages_helper.py)."""
import hashlib
import json
import os
from collections import Counter
from importlib import metadata

import pytest

import ignite_wire_corpus as iwc

EXPECTED = json.loads(open(os.environ["IWC_EXPECTED"], encoding="utf-8").read())


@pytest.fixture(scope="module")
def corpus():
    return iwc.load()


def test_the_installed_package_carries_the_release(corpus):
    assert os.environ["VIRTUAL_ENV"] in iwc.__file__
    assert metadata.version("ignite-wire-corpus") == corpus.version == EXPECTED["version"]
    assert corpus.spec_version == EXPECTED["spec_version"]
    assert corpus.manifest_sha256 == EXPECTED["manifest_sha256"]
    assert corpus.counts == EXPECTED["files"]


def test_counts_per_kind_and_file(corpus):
    assert dict(Counter(v.kind for v in corpus)) == EXPECTED["kinds"]
    assert {f: len(list(corpus.vectors(family=f))) for f in EXPECTED["families"]} == EXPECTED["families"]
    assert len(list(corpus)) == len(corpus) == EXPECTED["total"]


def test_filters_combine(corpus):
    query = {k: v for k, v in EXPECTED["filter"].items() if k != "count"}
    picked = list(corpus.vectors(**query))
    assert len(picked) == EXPECTED["filter"]["count"] > 0
    assert all(query["rule"] in v.rules and (v.family, v.era, v.format, v.kind) == (
        query["family"], query["era"], query["format"], query["kind"]) for v in picked)
    assert all(v.error and v.canonical is None for v in corpus.vectors(kind="decode-reject"))
    assert all((v.values or v.fields) and v.bytes is None for v in corpus.vectors(kind="encode-reject"))


def test_a_frame_vector_has_its_kind_and_fields(corpus):
    frame = EXPECTED["frame"]
    v = corpus.vector(frame["id"])
    assert (v.format, v.frame, sorted(v.fields), v.canonical.hex(), v.values) == (
        "frame", frame["frame"], frame["fields"], frame["hex"], None)


def test_ten_vectors_decode(corpus):
    assert len(EXPECTED["samples"]) == 10
    for s in EXPECTED["samples"]:
        v = corpus.vector(s["id"])
        assert v.kind == s["kind"] and v.bytes == bytes.fromhex(s["hex"])
        assert v.variants == {label: bytes.fromhex(h) for label, h in s["variants"].items()}


def test_skip_list_reads_as_the_harness_does(corpus):
    skips = iwc.SkipList.load(EXPECTED["skips"])
    got = [{"id": c["id"], "op": c["op"], "reason": skips.reason(corpus.vector(c["id"]), c["op"])}
           for c in EXPECTED["skip_cases"]]
    assert got == EXPECTED["skip_cases"]


def test_the_skip_list_refuses_the_lines_the_harness_refuses_naming_the_line():
    for line in EXPECTED["skip_lines"]:
        try:
            iwc.SkipList.parse(f"# a comment\n{line['text']}\n", "mine.txt")
            refused = None
        except iwc.SkipListError as e:
            refused = str(e)
        assert (refused is None) == line["valid"], (line, refused)
        assert refused is None or refused.startswith("mine.txt:2: "), refused


def test_a_tampered_copy_is_refused():
    t = EXPECTED["tampered"]
    with pytest.raises(iwc.CorpusIntegrityError) as e:
        iwc.load(t["dir"])
    assert f"{t['file']}: sha256 {t['actual']}" in str(e.value) and t["expected"] in str(e.value)
    assert hashlib.sha256(open(os.path.join(t["dir"], t["file"]), "rb").read()).hexdigest() == t["actual"]


def test_a_partial_copy_is_refused_naming_the_missing_and_the_extra_file():
    p = EXPECTED["partial"]
    with pytest.raises(iwc.CorpusIntegrityError) as e:
        iwc.load(p["dir"])
    assert f"{p['missing']}: missing" in str(e.value) and f"{p['extra']}: extra" in str(e.value)
