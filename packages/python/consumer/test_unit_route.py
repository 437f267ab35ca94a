"""The unit-test route of docs/add-your-client.md: an implementer's own pytest over the corpus package, with the
skip file the gate reads too (SKIP_FILE). msgpack-python stands for the decoder under test. A listed op that
passes fails the test, as it fails the gate (strict xfail: the harness's xpass)."""
import os

import msgpack
import pytest

import ignite_wire_corpus as iwc

CORPUS = iwc.load()
SKIPS = iwc.SkipList.load(os.environ.get("SKIP_FILE", "conformance/expected-failures.txt"))


def decode_cases(family):
    for v in CORPUS.vectors(family=family, kind="value"):
        yield pytest.param(v, "decode", v.canonical, id=f"{v.id} decode")
        for label, data in v.variants.items():
            yield pytest.param(v, f"decode[{label}]", data, id=f"{v.id} decode[{label}]")


@pytest.mark.parametrize("vector, op, data", decode_cases("int"))
def test_int_decode(request, vector, op, data):
    reason = SKIPS.reason(vector, op)
    if reason:
        request.applymarker(pytest.mark.xfail(reason=reason, strict=True))
    assert msgpack.unpackb(data) == int(vector.values[0]["value"])
