"""The corpus semantic lint (harness/corpus_lint.py): id prefix vs family, a typed value's era vs the vector's."""

import json

from harness import corpus as corpus_mod, corpus_lint
from harness_fixtures.harness_helpers import CORPUS, REPO, run

UUID = {"type": "uuid", "era": "3.0", "value": "00000000-0000-0000-0000-000000000000"}


def write(tmp_path, family, vectors):
    path = tmp_path / f"{family}.json"
    path.write_text(json.dumps({"corpus_version": "1.0.0", "family": family, "description": "x", "source": "x",
                                "vectors": vectors}))
    return path


def vector(vid, era="msgpack", values=None):
    return {"id": vid, "kind": "encode-reject", "description": "x", "era": era, "level": "must",
            "rules": ["MP-INT-RANGE"], "since": "1.0.0", "values": values or [{"type": "nil"}],
            "error": "unrepresentable"}


def test_the_repository_corpus_and_the_fixtures_pass():
    for path in (REPO / "vectors", CORPUS, REPO / "tests/harness_fixtures/tutorial/corpus.json"):
        corpus_lint.check(corpus_mod.load(path), corpus_mod.CorpusError)


def test_a_vector_in_the_wrong_family_is_refused_naming_it(tmp_path):
    path = write(tmp_path, "suite-x", [vector("suite.ok"), vector("x.ok"), vector("int.misfiled")])
    r = run(tmp_path, corpus=path, runners=None, commands=[])
    assert r.code == 2
    assert (f"{path}: $.vectors[2] (int.misfiled): id prefix 'int' does not fit family 'suite-x' (its ids start "
            f"with suite., suite-x., x.; see harness/id_prefixes.json)") in r.stderr
    assert "suite.ok" not in r.stderr and "x.ok" not in r.stderr


def test_a_typed_value_of_another_era_is_refused(tmp_path):
    nested = [{"type": "array", "items": [dict(UUID, era="alpha3")]}]
    path = write(tmp_path, "lint", [vector("lint.same-era", "3.0", [UUID]), vector("lint.other-era", "3.0", nested)])
    r = run(tmp_path, corpus=path, runners=None, commands=[])
    assert r.code == 2
    assert (f"{path}: $.vectors[1] (lint.other-era): $.values[0].items[0].era is 'alpha3' but the vector's era is "
            f"'3.0'") in r.stderr
    assert "lint.same-era" not in r.stderr


def test_a_frame_field_of_another_era_is_refused(tmp_path):
    """Frame vectors carry typed values in `fields` (structured fields nest them: error objects, pair lists)."""
    def frame(vid, trace):
        error = {"trace_id": trace, "code": {"type": "int", "value": "1"}, "class_name": {"type": "str", "value": "E"},
                 "message": {"type": "nil"}, "stack_trace": {"type": "nil"}, "extensions": [["k", UUID]]}
        return {"id": vid, "kind": "encode-reject", "description": "x", "era": "3.0", "level": "must",
                "rules": ["FR-ENCODE-FIELDS"], "since": "1.0.0", "format": "frame", "frame": "server-op-response",
                "fields": {"op": {"type": "int", "value": "73"}, "request_id": {"type": "int", "value": "-1"},
                           "flags": {"type": "int", "value": "0"}, "error": error}, "error": "frame.fields"}
    path = write(tmp_path, "lint", [frame("lint.same-era", UUID), frame("lint.other-era", dict(UUID, era="beta1"))])
    r = run(tmp_path, corpus=path, runners=None, commands=[])
    assert r.code == 2
    assert (f"{path}: $.vectors[1] (lint.other-era): $.fields.error.trace_id.era is 'beta1' but the vector's era is "
            f"'3.0'") in r.stderr
    assert "lint.same-era" not in r.stderr
