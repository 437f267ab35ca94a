"""The corpus checks: schema validity, lint, drift against a fresh regeneration, rule coverage,
and the registry / schema / spec.md agreement. Each failure says what to run or fix."""
import collections
import sys
import json
import re
from pathlib import Path

import jsonschema
import pytest

from harness import schemas

from generator.__main__ import render

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = ROOT / "schema"
REGISTRY = json.loads((SCHEMA / "registry.json").read_text())
# vectors/manifest.json lists the corpus files (tests/test_release_gate.py checks it); it is not one of them.
CORPUS = {p.name: json.loads(p.read_text(encoding="utf-8")) for p in sorted((ROOT / "vectors").glob("*.json"))
          if p.name != "manifest.json"}
VECTORS = [v for corpus in CORPUS.values() for v in corpus["vectors"]]
sys.setrecursionlimit(20000)  # jsonschema recurses ~15 frames per nesting level; the corpus nests 64 deep
SPEC = (ROOT / "spec.md").read_text(encoding="utf-8") if (ROOT / "spec.md").exists() else ""


def validator(name: str) -> jsonschema.Draft202012Validator:
    schemas = {s["$id"]: s for s in (json.loads(p.read_text()) for p in SCHEMA.glob("*.schema.json"))}
    schema = json.loads((SCHEMA / name).read_text())
    resolver = jsonschema.RefResolver(schema["$id"], schema, store=schemas)
    return jsonschema.Draft202012Validator(schema, resolver=resolver)


def test_schemas_are_valid_2020_12():
    for path in SCHEMA.glob("*.schema.json"):
        jsonschema.Draft202012Validator.check_schema(json.loads(path.read_text()))


SAMPLE = 4096   # items of a long list of distinct items that jsonschema checks (below)


def distinct_items(node):
    """The same document with each long list cut to its distinct elements, and a list of more than SAMPLE distinct
    elements to SAMPLE of them, evenly spread, the first and the last included. No schema here limits a list's
    length or uniqueness below 64 items, so validity is unchanged for the distinct cut; the sample leaves items
    out, which the harness's fast validator (tests/test_harness_schemas.py proves it agrees with jsonschema) checks
    over the whole file in the same test. jsonschema checks every item against every type: the 65535 distinct
    entries of map.count65535 took it 110 s, a third of the suite's time on one worker."""
    if isinstance(node, dict):
        return {k: distinct_items(v) for k, v in node.items()}
    if isinstance(node, list):
        items = [distinct_items(v) for v in node]
        if len(items) > 64:
            items = list({json.dumps(i, sort_keys=True): i for i in items}.values())
        if len(items) > SAMPLE:
            step = (len(items) - 1) / (SAMPLE - 1)
            items = [items[round(i * step)] for i in range(SAMPLE)]
        return items
    return node


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_corpus_file_matches_schema(name):
    errors = sorted(validator("corpus.schema.json").iter_errors(distinct_items(CORPUS[name])), key=lambda e: list(e.absolute_path))
    assert not errors, f"vectors/{name}: " + "; ".join(f"{'/'.join(map(str, e.absolute_path))}: {e.message[:200]}" for e in errors[:5])
    assert schemas.is_valid("corpus.schema.json", "", CORPUS[name]), f"vectors/{name}: the fast validator refuses it"


def test_a_bad_item_beyond_the_sample_is_still_caught():
    data = json.loads(json.dumps(CORPUS["large-map.json"]))
    data["vectors"][0]["values"][0]["entries"][40001][0]["type"] = "integer"   # not between two sampled items
    assert not list(validator("corpus.schema.json").iter_errors(distinct_items(data)))
    assert not schemas.is_valid("corpus.schema.json", "", data)


def test_registry_matches_its_schema():
    errors = list(validator("registry.schema.json").iter_errors(REGISTRY))
    assert not errors, "; ".join(f"{'/'.join(map(str, e.absolute_path))}: {e.message[:200]}" for e in errors[:5])


def test_corpus_is_what_the_generator_makes():
    """Drift: vectors/ must equal a fresh regeneration from generator/sources/."""
    fresh = render()
    stale = sorted(n for n in set(fresh) | set(CORPUS) if (ROOT / "vectors" / n).exists() is False
                   or n not in fresh or (ROOT / "vectors" / n).read_text(encoding="utf-8") != fresh[n])
    assert not stale, f"vectors/ differs from generator/sources/ in {stale}: run `make vectors` and commit the result"


def test_ids_are_unique():
    counts = collections.Counter(v["id"] for v in VECTORS)
    assert not [i for i, n in counts.items() if n > 1], "repeated ids"


def test_ids_start_with_nothing_unexpected():
    """An id's first segment names what it covers; vectors of one file share the file's topic."""
    for name, corpus in CORPUS.items():
        assert corpus["source"] == f"generator/sources/{corpus['family']}.yaml", name


def test_no_two_vectors_check_the_same_thing():
    """Two vectors with the same era, kind, bytes and NaN rule are one vector under two names."""
    seen = {}
    for v in VECTORS:
        key = (v["era"], v["kind"], v.get("canonical") or v.get("hex") or json.dumps(v.get("values", v.get("fields")), sort_keys=True), v.get("nan"),
               v.get("format"), json.dumps(v.get("columns")), v.get("frame"), json.dumps(v.get("features")))
        assert key not in seen, f"{v['id']} duplicates {seen[key]}"
        seen[key] = v["id"]


def test_variants_are_distinct_and_not_canonical():
    for v in VECTORS:
        if v["kind"] != "value":
            continue
        labels = [x["label"] for x in v["variants"]]
        hexes = [x["hex"] for x in v["variants"]]
        assert len(set(labels)) == len(labels), v["id"]
        assert len(set(hexes)) == len(hexes) and v["canonical"] not in hexes, v["id"]


def test_levels_follow_the_primary_rule():
    level = {r["id"]: r["level"] for r in REGISTRY["rules"]}
    for v in VECTORS:
        assert v["level"] == level[v["rules"][0]], v["id"]


def test_every_rule_has_a_vector_and_every_cited_rule_exists():
    """A rule about the protocol over time (PT-*, spec.md 11.9) has a node case (node/cases.json) instead."""
    rules = {r["id"] for r in REGISTRY["rules"]}
    cited = {r for v in VECTORS for r in v["rules"]} | {r for v in VECTORS for x in v.get("variants", []) for r in x.get("rules", [])}
    cited |= {r for c in json.loads((ROOT / "node" / "cases.json").read_text())["cases"] for r in c["rules"]}
    assert not cited - rules, f"vectors cite rules the registry lacks: {sorted(cited - rules)}"
    assert not rules - cited, f"rules with no vector: {sorted(rules - cited)}"


def test_error_classes_are_registered():
    classes = {c["class"] for c in REGISTRY["error_classes"]}
    used = {v["error"] for v in VECTORS if "error" in v}
    assert used <= classes, sorted(used - classes)
    assert classes <= used, f"error classes no vector uses: {sorted(classes - used)}"


def test_registry_value_types_match_the_value_schema():
    schema = json.loads((SCHEMA / "value.schema.json").read_text())
    in_schema = set(schema["$defs"]["value"]["properties"]["type"]["enum"])
    assert in_schema == {t["type"] for t in REGISTRY["value_types"]}
    assert {layout["value_type"] for layout in REGISTRY["layouts"]} <= in_schema


def test_registry_eras_match_the_schemas():
    eras = [e["id"] for e in REGISTRY["eras"]]
    assert json.loads((SCHEMA / "corpus.schema.json").read_text())["$defs"]["era"]["enum"] == eras
    assert json.loads((SCHEMA / "protocol.schema.json").read_text())["$defs"]["era"]["enum"] == eras
    ignite = [e["id"] for e in REGISTRY["eras"] if e["ignite"]]
    assert json.loads((SCHEMA / "value.schema.json").read_text())["$defs"]["ignite_era"]["enum"] == ignite
    for ext in REGISTRY["ext_types"]:
        assert set(ext["layouts"]) <= set(ignite), ext["name"]


def test_registry_covers_every_code_and_column_type():
    codes = sorted(e["code"] for e in REGISTRY["ext_types"])
    assert codes == list(range(1, len(codes) + 1)), "Ignite ext codes are assigned from 1 without gaps"
    assert sorted({c["id"] for c in REGISTRY["column_types"]}) == list(range(0, 20))


def test_every_ext_code_appears_in_a_vector_of_each_era_that_assigns_it():
    present = {(v["era"], x["type"]) for v in VECTORS for x in v.get("values", []) if "era" in x}
    layouts = {layout["id"]: layout["value_type"] for layout in REGISTRY["layouts"]}
    for ext in REGISTRY["ext_types"]:
        for era, layout in ext["layouts"].items():
            assert (era, layouts[layout]) in present, f"no vector for {ext['name']} in {era}"


def test_seed_vectors_have_their_stated_lengths():
    by_id = {v["id"]: v for v in VECTORS}
    assert len(bytes.fromhex(by_id["seed.iep75.sql-request"]["canonical"])) == 54
    assert len(bytes.fromhex(by_id["seed.dotnet-benchmark.person"]["canonical"])) == 1040


def test_corpus_size():
    assert len(VECTORS) >= 1500


# --- spec.md agrees with the registry ---------------------------------------------------------
RULE_LINE = re.compile(r"^- \*\*([A-Z0-9]+(?:-[A-Z0-9]+)+)\*\* \((MUST|SHOULD|IMPL)\) ", re.M)


def test_spec_states_every_registry_rule_once_with_its_level():
    stated = RULE_LINE.findall(SPEC)
    counts = collections.Counter(rule for rule, _ in stated)
    assert not [r for r, n in counts.items() if n > 1], "rules stated twice in spec.md"
    registry = {r["id"]: r["level"].upper() for r in REGISTRY["rules"]}
    assert dict(stated) == registry, (
        f"spec.md and schema/registry.json disagree: missing in spec {sorted(set(registry) - set(dict(stated)))}, "
        f"not in registry {sorted(set(dict(stated)) - set(registry))}, "
        f"level differs {sorted(r for r in registry if r in dict(stated) and dict(stated)[r] != registry[r])}")


def test_spec_names_every_ext_code_column_type_and_error_class():
    for ext in REGISTRY["ext_types"]:
        assert re.search(rf"\|\s*{ext['code']}\s*\|\s*`?{ext['name']}`?\s*\|", SPEC), f"spec.md has no table row for ext {ext['code']} {ext['name']}"
    for col in REGISTRY["column_types"]:
        assert re.search(rf"\|\s*{col['id']}\s*\|\s*`?{col['name']}`?\s*\|", SPEC), f"spec.md has no table row for ColumnType {col['id']} {col['name']}"
    for cls in REGISTRY["error_classes"]:
        assert f"`{cls['class']}`" in SPEC, f"spec.md does not name error class {cls['class']}"


def test_spec_cites_commits():
    assert len(set(re.findall(r"apache/ignite-3@([0-9a-f]{7,40})", SPEC))) >= 10
