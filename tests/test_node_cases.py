"""node/cases.json (spec.md 11.9): built from generator/node/cases.yaml, valid against its schema, at least 40 cases,
every PT-* rule with a case, every case's level its first rule's, and every byte the node sends from the generator."""
import json
from pathlib import Path

import pytest

from generator import node_cases
from harness import schemas
from generator.sources import SourceError

ROOT = Path(__file__).resolve().parent.parent
CASES = json.loads((ROOT / "node" / "cases.json").read_text())
REGISTRY = json.loads((ROOT / "schema" / "registry.json").read_text())


def test_cases_file_is_the_generators_build():
    assert (ROOT / "node" / "cases.json").read_text() == node_cases.render(), "run: make vectors"


def test_cases_match_their_schema():
    errors = [f"{list(e.path)}: {e.message[:200]}" for e in schemas.validator("node-cases.schema.json").iter_errors(CASES)]
    assert not errors, errors[:5]


def test_every_pt_rule_has_a_case_and_levels_follow_the_first_rule():
    level = {r["id"]: r["level"] for r in REGISTRY["rules"]}
    pt = {r for r in level if r.startswith("PT-")}
    cited = {r for c in CASES["cases"] for r in c["rules"]}
    assert len(CASES["cases"]) >= 40
    assert pt and not pt - cited, f"PT rules without a node case: {sorted(pt - cited)}"
    assert cited <= set(level)
    for c in CASES["cases"]:
        assert c["level"] == level[c["rules"][0]], c["id"]


def test_handshake_bytes_come_from_the_frame_builder():
    """The default handshake response of the first case is the frame builder's, magic and length included."""
    sent = CASES["cases"][0]["script"][1]["send"][0]
    assert sent["kind"] == "handshake-response" and sent["hex"].startswith("49474e49")
    body = bytes.fromhex(sent["hex"])[8:]
    assert int.from_bytes(bytes.fromhex(sent["hex"])[4:8], "big") == len(body)


@pytest.mark.parametrize("bad, message", [
    ({"rules": ["PT-NOPE"]}, "rules not in schema/registry.json"),
    ({"workload": "dance"}, "unknown workload"),
    ({"script": [{"read": "NOT_AN_OP"}]}, "unknown client op"),
    ({"script": [{"wobble": 1}]}, "unknown step"),
])
def test_bad_sources_are_refused(bad, message):
    source = __import__("yaml").safe_load(node_cases.SOURCE.read_text())
    source["cases"] = [dict(source["cases"][0], **bad)]
    with pytest.raises(SourceError, match=message):
        node_cases.build(source)


def test_driver_protocol_page_quotes_the_schema():
    """drivers/PROTOCOL.md's JSON blocks are {name: sub-schema} fragments of schema/driver.schema.json, and every
    $defs entry is shown."""
    import re
    schema = json.loads((ROOT / "schema" / "driver.schema.json").read_text())
    top = {k: v for k, v in schema.items() if k in ("type", "required", "additionalProperties", "properties", "allOf")}
    blocks = [json.loads(b) for b in re.findall(r"```json\n(.*?)```", (ROOT / "drivers" / "PROTOCOL.md").read_text(), re.S)]
    shown = {}
    for block in blocks:
        (name, fragment), = block.items()
        assert fragment == (top if name == "outcome" else schema["$defs"][name]), name
        shown[name] = fragment
    assert set(shown) == {"outcome"} | set(schema["$defs"])
