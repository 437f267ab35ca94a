"""The generator's `cited:` section: a fact an existing vector holds is cited in that vector's description, and
only if the vector holds exactly the cited values and bytes."""
import pytest

from generator.__main__ import apply_citations
from generator.expand import expand
from generator.sources import SourceError

PLAIN = {"family": "int", "era": "msgpack", "since": "1.0.0",
         "cases": [{"id": "int.p300", "description": "300 is cd 01 2c", "rules": ["MP-INT-CANON"], "value": {"int": 300}}],
         "rejects": [{"id": "int.cut", "description": "cd 01 ends early", "rules": ["GEN-TRUNC"], "bytes": "cd 01",
                      "error": "malformed.truncated"}]}


def citing(entry):
    return {"family": "upstream", "era": "msgpack", "since": "1.2.0", "cited": [entry]}


def run(entry):
    sources = [(rel, source, expand(source, rel)) for rel, source in
               (("plain.yaml", PLAIN), ("upstream.yaml", citing(entry)))]
    apply_citations(sources)
    return {v["id"]: v for _rel, _source, vectors in sources for v in vectors}


def test_a_cited_value_and_a_cited_reject_are_appended_to_the_vectors_descriptions():
    vectors = run({"id": "int.p$n", "description": "Test.packInt($n)", "foreach": {"n": [300]},
                   "rules": ["MP-INT-CANON"], "value": {"int": "$n"}})
    assert vectors["int.p300"]["description"] == "300 is cd 01 2c Upstream: Test.packInt(300)"
    vectors = run({"id": "int.cut", "description": "Test.readPastEnd", "rules": ["GEN-TRUNC"], "bytes": "cd 01",
                   "error": "malformed.truncated"})
    assert vectors["int.cut"]["description"].endswith(" Upstream: Test.readPastEnd")


@pytest.mark.parametrize("entry, message", [
    ({"id": "int.p301", "description": "x", "rules": ["MP-INT-CANON"], "value": {"int": 301}},
     "no vector 'int.p301'"),
    ({"id": "int.p300", "description": "x", "rules": ["MP-INT-CANON"], "value": {"int": 301}},
     "int.p300 differs from the cited fact in ['values', 'canonical']"),
    ({"id": "int.p300", "description": "x", "rules": ["MP-INT-WIDE"], "value": {"int": 300}},
     "lacks rules ['MP-INT-WIDE']"),
    ({"id": "int.cut", "description": "x", "rules": ["GEN-TRUNC"], "bytes": "cd 01", "error": "malformed.reserved"},
     "int.cut differs from the cited fact in ['error']"),
])
def test_a_citation_the_vector_does_not_hold_is_refused(entry, message):
    with pytest.raises(SourceError, match=message.replace("[", r"\[").replace("]", r"\]")):
        run(entry)
