"""spec.md section 11 and schema/registry.json `frame_layouts` (the layouts every runner walks) name the same fields
in the same order. The spec states each layout in a table or a sentence; each span below is where one is stated,
and its backticked field names, in order of first mention, must be the registry's (for the kinds that carry the
response header or the direct-mapping tx forms, those are checked once, where the spec states them)."""
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SPEC = (ROOT / "spec.md").read_text(encoding="utf-8")
LAYOUTS = json.loads((ROOT / "schema" / "registry.json").read_text())["frame_layouts"]
MESSAGES = {m["kind"]: m["fields"] for m in LAYOUTS["messages"]}
HEADER = [f["name"] for f in MESSAGES["response"][:5]]     # request_id .. error: §11.4's response header

# kind -> (where the spec starts stating it, where it stops), and whether the spec refers to the response header
SPANS = {
    "handshake-request": ("Handshake request (`handshake-request`)", "The minimal anonymous request", False),
    "handshake-response": ("Handshake response (`handshake-response`)", "- **FR-HS-RESPONSE**", False),
    "request": ("Request (`request`)", "Response (`response`)", False),
    "response": ("Response (`response`)", "- **FR-REQUEST**", False),
    "server-op-response": ("Kind `server-op-response`:", "### 11.5", False),
    "tuple-request": ("Kind `tuple-request`", "Kinds `tuple-upsert-response`", False),
    "tuple-upsert-response": ("Kinds `tuple-upsert-response`", "- **FR-TUPLE-REQUEST**", True),
    "tuple-get-response": ("Kinds `tuple-upsert-response`", "- **FR-TUPLE-REQUEST**", True),
    "sql-execute-request": ("Kind `sql-execute-request`", "The arguments are", False),
    "tx-piggyback-response": ("| `tx-piggyback-response` |", "\n", True),
    "tx-direct-response": ("| `tx-direct-response` |", "\n", True),
}
ERROR_SPAN = ("| member | type |", "- **FR-ERROR**")
TX_FORMS = {-1: ("| -1 (`TX_ID_FIRST_DIRECT`)", "\n"), 0: ("| 0 (`TX_ID_DIRECT`)", "\n")}


def span(start, end, text=SPEC):
    at = text.index(start)
    return text[at + len(start):text.index(end, at + len(start))]


def named(text, names):
    """The backticked names of `text` that are in `names`, in order of first mention."""
    return list(dict.fromkeys(n for n in re.findall(r"`([a-z][a-z0-9_]*)`", text) if n in names))


def unique(fields):
    return list(dict.fromkeys(f["name"] for f in fields))


@pytest.mark.parametrize("kind", sorted(MESSAGES))
def test_the_spec_states_the_registry_layout(kind):
    assert kind in SPANS, f"spec.md 11 has no span for {kind} in this test: add where the spec states it"
    start, end, header = SPANS[kind]
    fields = [f for f in MESSAGES[kind] if "tx_form" not in f.get("when", {})]
    if header:
        assert unique(fields[:5]) == HEADER, f"{kind} does not start with the response header"
        fields = fields[5:]
    want = unique(fields)
    assert named(span(start, end), set(want)) == want


def test_the_spec_states_the_error_object_and_the_tx_forms():
    want = unique(LAYOUTS["error_object"])
    assert named(span(*ERROR_SPAN), set(want)) == want
    for kind in ("tuple-request", "sql-execute-request"):
        for tx, (start, end) in TX_FORMS.items():
            form = [f for f in MESSAGES[kind] if f.get("when", {}).get("tx_form", {}).get("tx") == tx]
            assert named(span(start, end), set(unique(form))) == unique(form), (kind, tx)


def test_a_layout_out_of_order_is_caught():
    text = "| `b` | int |\n| `a` | int |"
    assert named(text, {"a", "b"}) == ["b", "a"] != ["a", "b"]
