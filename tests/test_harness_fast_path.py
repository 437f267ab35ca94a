"""The judging fast paths behind judge.answer(): answers exactly as expected skip the parse (_line_pass) or the schema
check (_expected_pass) and must judge as _judge() would."""

import copy
import json

import pytest

from harness_fixtures.harness_helpers import CORPUS
from harness import ops
from harness.corpus import load
from harness.judge import NotAnAnswer, answer
from harness.judge import _expected_pass as expected_pass, _judge as judge, _line_pass as exact_pass

PLAN = ops.plan(load(CORPUS).vectors)


def expected_answer(op, rid=7):
    v = op.vector
    if op.name == "encode":
        return {"id": rid, "hex": v["canonical"]}
    if op.name in ("reject", "reject-encode"):
        return {"id": rid, "error": {"class": v["error"], "message": "any text"}}
    return {"id": rid, "values": copy.deepcopy(v["values"])}


@pytest.mark.parametrize("op", PLAN, ids=lambda op: f"{op.vector_id}:{op.name}")
def test_exact_answers_take_the_fast_path_and_judge_alike(op):
    answer = expected_answer(op)
    fast = expected_pass(op, answer)
    assert fast is not None and fast == judge(op, answer)


@pytest.mark.parametrize("op", PLAN, ids=lambda op: f"{op.vector_id}:{op.name}")
def test_anything_else_takes_the_slow_path(op):
    answer = expected_answer(op)
    assert expected_pass(op, dict(answer, id=True)) is None        # true is not the integer id
    assert expected_pass(op, dict(answer, id=7.0)) is None
    assert expected_pass(op, dict(answer, extra=1)) is None
    if "error" in answer:
        assert expected_pass(op, dict(answer, error=dict(answer["error"], extra=1))) is None
        assert expected_pass(op, dict(answer, error=dict(answer["error"], message=5))) is None
        assert expected_pass(op, dict(answer, error=dict(answer["error"], **{"class": "invalid.other"}))) is None
    elif "hex" in answer:
        assert expected_pass(op, dict(answer, hex=answer["hex"] + "c0")) is None
        assert expected_pass(op, dict(answer, hex=[answer["hex"]])) is None


def test_values_compare_with_json_types():
    vector = {"id": "t", "kind": "value", "era": "msgpack", "values": [
        {"type": "bool", "value": True}, {"type": "ext", "code": 1, "hex": ""}], "canonical": "c3c70001",
        "variants": []}
    op = ops.Op(vector, "decode", "decode", hex=vector["canonical"])
    good = {"id": 1, "values": copy.deepcopy(vector["values"])}
    assert expected_pass(op, good) is not None
    for path, wrong in ((0, {"type": "bool", "value": 1}), (1, {"type": "ext", "code": 1.0, "hex": ""}),
                        (1, {"type": "ext", "code": True, "hex": ""})):
        values = copy.deepcopy(vector["values"])
        values[path] = wrong
        assert values == vector["values"]          # Python's == cannot tell these apart ...
        assert expected_pass(op, {"id": 1, "values": values}) is None     # ... the fast path does


def test_nan_class_variants_are_left_to_judge():
    # In a NaN-class vector the canonical bytes may match a variant's bytes by NaN class: judge() names the label.
    base = next(o for o in PLAN if o.name == "encode" and o.vector.get("nan") == "class").vector
    variant = {"label": "other-nan", "hex": base["canonical"][:-1] + "f", "encoder_may_emit": True}
    op = ops.Op(dict(base, variants=[variant]), "encode", "encode")
    assert expected_pass(op, {"id": 1, "hex": variant["hex"]}) is None
    assert expected_pass(op, {"id": 1, "hex": base["canonical"]}).matched == "canonical"


@pytest.mark.parametrize("op", PLAN, ids=lambda op: f"{op.vector_id}:{op.name}")
def test_cached_request_lines_equal_fresh_ones(op):
    for rid in (0, 1, 7, 123456789):
        assert op.request_line(rid) == ops.encode_line(op.request(rid))


def compact_lines(answer):
    """The answer as runners write it (the line read_line() gives, its newline dropped): compact UTF-8 JSON, keys in
    the corpus's order or sorted."""
    return [json.dumps(answer, ensure_ascii=False, separators=(",", ":"), sort_keys=s).encode()
            for s in (False, True)]


@pytest.mark.parametrize("op", PLAN, ids=lambda op: f"{op.vector_id}:{op.name}")
def test_exact_lines_pass_unparsed_and_judge_alike(op):
    expected = expected_answer(op)
    for line in compact_lines(expected):
        fast = exact_pass(op, 7, line)
        assert fast is not None and fast == judge(op, json.loads(line)) == expected_pass(op, expected), line
        assert answer(op, 7, line) is fast
        assert exact_pass(op, 8, line) is None and exact_pass(op, 70, line) is None   # another request's id
        assert exact_pass(op, 7, line[:-1]) is None and exact_pass(op, 7, line + b" ") is None
        assert exact_pass(op, 7, line.replace(b",", b", ", 1)) is None    # equal JSON, other text: parsed
        assert exact_pass(op, 7, line[:-1] + b" }") is None


def test_exact_lines_need_the_exact_values():
    op = next(o for o in PLAN if o.name == "decode" and '"value":' in json.dumps(o.vector["values"]))
    answer = expected_answer(op)
    (line, _) = compact_lines(answer)
    text = json.dumps(op.vector["values"], ensure_ascii=False, separators=(",", ":")).encode()
    assert text in line
    other = line.replace(b'"value":', b'"value": ', 1)
    assert exact_pass(op, 7, other) is None


@pytest.mark.parametrize("message", ["", "any text", 'quote " and \\ backslash', "\u00e9 \u2028 \U0001F600",
                                     "tab\t newline\n", "\x7f"])
def test_rejections_pass_unparsed_with_any_message(message):
    op = next(o for o in PLAN if o.name == "reject")
    answer = {"id": 7, "error": {"class": op.vector["error"], "message": message}}
    escaped = b'{"id":7,"error":{"class":"%s","message":"\\ud800"}}' % op.vector["error"].encode()
    for line in compact_lines(answer) + [json.dumps(answer, separators=(",", ":")).encode(), escaped]:
        assert exact_pass(op, 7, line) == expected_pass(op, json.loads(line)) == judge(op, json.loads(line))


@pytest.mark.parametrize("body", [b'raw "quote', b"raw \x01 control", b"bad \\x escape", b"short \\u12",
                                  b"trailing backslash \\", b"bad utf-8 \xff", b'end"}}\n{"x":"'])
def test_rejections_with_a_message_json_refuses_take_the_parsing_path(body):
    op = next(o for o in PLAN if o.name == "reject")
    cls = json.dumps(op.vector["error"]).encode()
    for line in (b'{"id":7,"error":{"class":' + cls + b',"message":"' + body + b'"}}',
                 b'{"error":{"class":' + cls + b',"message":"' + body + b'"},"id":7}'):
        assert exact_pass(op, 7, line) is None
        with pytest.raises(ValueError):
            json.loads(line)


def test_rejections_of_another_class_or_id_are_parsed():
    op = next(o for o in PLAN if o.name == "reject")
    answer = {"id": 7, "error": {"class": op.vector["error"], "message": "m"}}
    (line, _) = compact_lines(answer)
    assert exact_pass(op, 7, line) is not None
    assert exact_pass(op, 8, line) is None and exact_pass(op, 77, line) is None
    assert exact_pass(op, 7, line.replace(op.vector["error"].encode(), b"invalid.other")) is None
    assert exact_pass(op, 7, line.replace(b'"m"', b'"m","extra":1')) is None


@pytest.mark.parametrize("op", PLAN[::7], ids=lambda op: f"{op.vector_id}:{op.name}")
def test_the_entry_point_judges_every_line_as_the_slow_path(op):
    """answer() on lines the fast paths leave: an equal answer written another way, one that fails, one that is no
    answer at all (a protocol error: not JSON, another id, against the schema)."""
    expected = expected_answer(op)
    spaced = json.dumps(expected).encode()
    assert exact_pass(op, 7, spaced) is None and answer(op, 7, spaced) == judge(op, expected)
    wrong = {"id": 7, "skipped": "not today"}
    assert answer(op, 7, json.dumps(wrong).encode()) == judge(op, wrong)
    for line, words in ((b"hello", "stdout line is not JSON"), (spaced.replace(b'"id": 7', b'"id": 8'), "answered id 8"),
                        (b'{"id": 7, "values": 5}', "violates protocol.schema.json")):
        outcome = answer(op, 7, line)
        assert type(outcome) is NotAnAnswer and words in outcome.problem, line
        assert (outcome.not_json is not None) == (line == b"hello")
