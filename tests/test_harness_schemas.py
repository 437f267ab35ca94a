"""The compiled schema predicates (harness/fast_schema.py) must agree with jsonschema on valid and broken input."""

import copy
import json
import random

import pytest

from harness_fixtures.harness_helpers import CORPUS, REPO  # noqa: F401  (puts the repo on sys.path)
from harness import fast_schema, schemas


def mutations(instance, rng, count):
    """Broken copies of instance: a member removed, added or changed somewhere inside it."""
    out = []
    for _ in range(count):
        clone = copy.deepcopy(instance)
        spots = []

        def collect(node):
            if isinstance(node, dict):
                spots.append(node)
                for v in node.values():
                    collect(v)
            elif isinstance(node, list):
                spots.append(node)
                for v in node:
                    collect(v)
        collect(clone)
        node = rng.choice(spots)
        if isinstance(node, dict) and node:
            key = rng.choice(sorted(node))
            action = rng.choice(["drop", "type", "string", "number", "extra", "bool", "list"])
            if action == "drop":
                del node[key]
            elif action == "extra":
                node["unexpected"] = 1
            else:
                node[key] = {"type": "ext", "string": "XYZ", "number": -5, "bool": True, "list": [],
                             "drop": None}.get(action, "float32")
        elif isinstance(node, list):
            node.append(rng.choice([{"type": "nil"}, {"type": "int", "value": "01"}, 7, "x"]) if node or
                        rng.random() < 0.5 else None)
        out.append(clone)
    return out


def corpus_instances():
    vectors = []
    for path in sorted(CORPUS.glob("*.json")):
        vectors += json.loads(path.read_text())["vectors"]
    return vectors


@pytest.mark.parametrize("schema_name, pointer", [
    ("corpus.schema.json", "/$defs/vector"),
    ("value.schema.json", ""),
    ("protocol.schema.json", "/$defs/decode_response"),
    ("protocol.schema.json", "/$defs/encode_response"),
])
def test_fast_check_agrees_with_jsonschema(schema_name, pointer):
    fast = schemas.fast_check(schema_name, pointer)
    assert fast is not None, "the schema uses a keyword fast_schema does not compile"
    slow = schemas.validator(schema_name, pointer)
    rng = random.Random(1234)
    base = corpus_instances()
    if schema_name == "value.schema.json":
        base = [v for vec in base for v in vec.get("values", [])]
    elif schema_name.startswith("protocol"):
        base = ([{"id": 3, "values": vec["values"]} for vec in base if "values" in vec] +
                [{"id": 4, "hex": "c0"}, {"id": 5, "error": {"class": "invalid.utf8", "message": "m"}},
                 {"id": 6, "skipped": "why"}])
    instances = base + [m for b in base for m in mutations(b, rng, 25)]
    disagreements = [i for i in instances if fast(i) != slow.is_valid(i)]
    assert not disagreements, json.dumps(disagreements[:3])
    assert any(not fast(i) for i in instances) and any(fast(i) for i in instances)


def test_every_schema_in_the_repo_compiles():
    for path in sorted((REPO / "schema").glob("*.schema.json")):
        assert schemas.fast_check(path.name) is not None, path.name


def test_unknown_keywords_refuse_to_compile():
    doc = {"$id": "https://x.example/s.json", "type": "object", "dependentRequired": {"a": ["b"]}}
    with pytest.raises(fast_schema.Unsupported):
        fast_schema.Compiler({doc["$id"]: doc}).compile(doc["$id"] + "#")


def test_if_dispatch_keeps_if_semantics_for_non_objects():
    doc = {"$id": "https://x.example/s.json", "allOf": [
        {"if": {"properties": {"type": {"const": "a"}}}, "then": {"required": ["x"]}},
        {"if": {"properties": {"type": {"const": "b"}}}, "then": {"type": "object"}}]}
    check = fast_schema.Compiler({doc["$id"]: doc}).compile(doc["$id"] + "#")
    assert check({"type": "a", "x": 1}) and not check({"type": "a"}) and check({"type": "c"})
    assert not check(5)          # every 'if' holds for a non-object, so every 'then' applies
    assert not check({})         # same without the discriminating member ({} lacks x)
