"""The harness side of frames (spec.md 11.1): requests carry frame / features / fields, decode answers are judged by
their fields (fast paths included), failures name the field, and `annotate --format frame` labels bytes by field."""

import io
import json
import re

import pytest

from harness_fixtures.harness_helpers import REPO  # noqa: F401  (puts the repository on sys.path)
from harness import cli, frame_annotate, judge, ops, schemas

MINIMAL = "49474e490000000703000002c40000"     # upstream's minimal anonymous handshake request (spec.md 11.3)


def typed_int(n):
    return {"type": "int", "value": str(n)}


HANDSHAKE_FIELDS = {"version_major": typed_int(3), "version_minor": typed_int(0), "version_patch": typed_int(0),
                    "client_code": typed_int(2), "features": [], "extensions": []}
SQL_FEATURES = ["SQL_PARTITION_AWARENESS"]


def vector(**extra):
    v = {"id": "frame.test.minimal", "kind": "value", "era": "3.0", "format": "frame", "frame": "handshake-request",
         "fields": json.loads(json.dumps(HANDSHAKE_FIELDS)), "canonical": MINIMAL, "variants": [
             {"label": "int8-major", "hex": "49474e4900000008d00300 0002c40000".replace(" ", ""),
              "why": "wider int", "encoder_may_emit": False}]}
    v.update(extra)
    return v


def op_named(v, name):
    return next(o for o in ops.ops_for(v) if o.name == name)


def answer(op, message):
    line = message if isinstance(message, bytes) else json.dumps(message, separators=(",", ":")).encode()
    return judge.answer(op, 1, line)


# ---------------------------------------------------------------- requests

def test_encode_request_sends_frame_features_and_fields_not_values():
    v = vector(features=SQL_FEATURES)
    req = op_named(v, "encode").request(7)
    assert req == {"cmd": "encode", "id": 7, "era": "3.0", "format": "frame", "frame": "handshake-request",
                   "features": SQL_FEATURES, "fields": HANDSHAKE_FIELDS}
    assert schemas.is_valid("protocol.schema.json", "/$defs/encode_request", req)


def test_decode_requests_send_frame_and_features_with_the_hex():
    v = vector(features=SQL_FEATURES)
    for name, hex_ in (("decode", MINIMAL), ("decode[int8-major]", v["variants"][0]["hex"])):
        req = op_named(v, name).request(8)
        assert req == {"cmd": "decode", "id": 8, "era": "3.0", "format": "frame", "frame": "handshake-request",
                       "features": SQL_FEATURES, "hex": hex_}
        assert schemas.is_valid("protocol.schema.json", "/$defs/decode_request", req)
    # the request line (the cached form every runner gets) is the same request
    op = op_named(v, "decode")
    assert json.loads(op.request_line(8)) == op.request(8)


def test_a_value_vector_request_has_no_frame_members():
    v = {"id": "int.one", "kind": "value", "era": "msgpack", "values": [typed_int(1)], "canonical": "01",
         "variants": []}
    req = op_named(v, "encode").request(1)
    assert req == {"cmd": "encode", "id": 1, "era": "msgpack", "values": [typed_int(1)]}


@pytest.mark.parametrize("request_, valid", [
    ({"cmd": "encode", "id": 1, "era": "3.0", "format": "frame", "frame": "request", "fields": {}}, True),
    ({"cmd": "encode", "id": 1, "era": "3.0", "format": "frame", "fields": {}}, False),              # no kind
    ({"cmd": "encode", "id": 1, "era": "3.0", "format": "frame", "frame": "request", "values": []}, False),
    ({"cmd": "encode", "id": 1, "era": "3.0", "values": [], "frame": "request"}, False),             # not a frame
    ({"cmd": "encode", "id": 1, "era": "3.0", "format": "frame", "frame": "nope", "fields": {}}, False),
    ({"cmd": "decode", "id": 1, "era": "3.0", "format": "frame", "hex": "00"}, False),
    ({"cmd": "decode", "id": 1, "era": "3.0", "hex": "00", "features": []}, False),
])
def test_protocol_schema_ties_frame_members_to_format_frame(request_, valid):
    cmd = request_["cmd"]
    assert schemas.is_valid("protocol.schema.json", f"/$defs/{cmd}_request", request_) is valid
    validator = schemas.validator("protocol.schema.json", f"/$defs/{cmd}_request")
    assert validator.is_valid(request_) is valid     # jsonschema agrees with the compiled check


def test_decode_answer_with_fields_is_valid_and_frame_error_classes_are_allowed():
    ok = {"id": 1, "fields": HANDSHAKE_FIELDS}
    assert schemas.is_valid("protocol.schema.json", "/$defs/decode_response", ok)
    assert not schemas.is_valid("protocol.schema.json", "/$defs/decode_response", dict(ok, values=[]))
    error = {"id": 1, "error": {"class": "frame.magic", "message": "x"}}
    assert schemas.is_valid("protocol.schema.json", "/$defs/decode_response", error)


# ---------------------------------------------------------------- judging

def test_exact_fields_pass_by_the_line_and_by_parsing():
    v = vector()
    op = op_named(v, "decode")
    compact = b'{"id":1,"fields":' + json.dumps(HANDSHAKE_FIELDS, separators=(",", ":")).encode() + b"}"
    assert judge.answer(op, 1, compact) is judge.FIELDS_EQUAL
    # members in another order, spaces: parsed, still equal
    spaced = json.dumps({"fields": dict(reversed(list(HANDSHAKE_FIELDS.items()))), "id": 1}).encode()
    outcome = judge.answer(op_named(vector(), "decode"), 1, spaced)
    assert (outcome.verdict, outcome.detail, outcome.answer) == ("pass", "fields equal", "fields")
    # the slow path gives the same outcome as the fast one
    assert judge._judge(op, json.loads(compact)) == judge.FIELDS_EQUAL


def test_sorted_keys_line_passes_without_parsing(monkeypatch):
    op = op_named(vector(), "decode")
    line = b'{"fields":' + json.dumps(HANDSHAKE_FIELDS, separators=(",", ":"), sort_keys=True).encode() + b',"id":1}'
    line = json.dumps(json.loads(line), separators=(",", ":"), sort_keys=True).encode()
    monkeypatch.setattr(judge.json, "loads", lambda *_: pytest.fail("parsed an exact answer line"))
    assert judge.answer(op, 1, line) is judge.FIELDS_EQUAL


def test_different_field_fails_naming_the_field_with_both_typed_values():
    fields = dict(HANDSHAKE_FIELDS, client_code=typed_int(3))
    outcome = answer(op_named(vector(), "decode[int8-major]"), {"id": 1, "fields": fields})
    assert outcome.verdict == "fail" and outcome.detail == "field client_code differs (at $.client_code.value)"
    assert outcome.diagnosis[0] == 'field client_code: expected {"type":"int","value":"2"}'
    assert outcome.diagnosis[1] == 'field client_code: actual   {"type":"int","value":"3"}'
    text = "\n".join(outcome.diagnosis)
    assert "input (decode[int8-major]): 49474e4900000008d003" in text
    assert any(line.split()[-3:] == ["client_code", "fixint", "2"] for line in outcome.diagnosis), text


def test_missing_and_extra_fields_are_named():
    fields = dict(HANDSHAKE_FIELDS, extra=typed_int(1))
    del fields["features"]
    outcome = answer(op_named(vector(), "decode"), {"id": 1, "fields": fields})
    assert outcome.verdict == "fail" and outcome.detail == "fields differ: missing features, unexpected extra"


def test_values_instead_of_fields_fail():
    outcome = answer(op_named(vector(), "decode"), {"id": 1, "values": [typed_int(3)]})
    assert outcome.verdict == "fail" and outcome.detail == "answered values, expected fields"


def test_skip_is_a_skip():
    outcome = answer(op_named(vector(), "decode"), {"id": 1, "skipped": "no frames here"})
    assert (outcome.verdict, outcome.detail) == ("skip", "runner skipped: no frames here")


def test_encode_of_other_bytes_names_the_offset_and_the_field_there():
    wrong = MINIMAL[:22] + "03" + MINIMAL[24:]      # client_code 3 at byte 11
    outcome = answer(op_named(vector(), "encode"), {"id": 1, "hex": wrong})
    assert outcome.verdict == "fail" and outcome.detail == "bytes differ from canonical at offset 11"
    assert outcome.diagnosis[0] == ("first difference at byte offset 11: canonical field client_code (fixint 2), "
                                    "actual field client_code (fixint 3)")
    assert outcome.diagnosis[1] == 'field client_code: expected {"type":"int","value":"2"}'
    marked = [line for line in outcome.diagnosis if line.startswith("  >")]
    assert len(marked) == 2 and all("client_code" in line for line in marked)
    assert outcome.diagnosis[-1].startswith('fields: {"version_major"')
    assert answer(op_named(vector(), "encode"), {"id": 1, "hex": MINIMAL}).verdict == "pass"


def test_reject_failure_shows_the_input_by_field():
    v = {"id": "frame.test.magic", "kind": "decode-reject", "era": "3.0", "format": "frame",
         "frame": "handshake-request", "hex": "49474e4a0000000703000002c40000", "error": "frame.magic"}
    op = op_named(v, "reject")
    assert answer(op, {"id": 1, "error": {"class": "frame.magic", "message": "m"}}).verdict == "pass"
    outcome = answer(op, {"id": 1, "fields": HANDSHAKE_FIELDS})
    assert outcome.verdict == "fail" and outcome.detail == "expected error frame.magic, but it decoded"
    assert any("magic  not 'IGNI' (49474e49): frame.magic" in line for line in outcome.diagnosis)


def test_encode_reject_failure_shows_the_fields_and_the_bytes_written():
    v = {"id": "frame.test.fields", "kind": "encode-reject", "era": "3.0", "format": "frame",
         "frame": "handshake-request", "fields": dict(HANDSHAKE_FIELDS, extra=typed_int(1)), "error": "frame.fields"}
    outcome = answer(op_named(v, "reject-encode"), {"id": 1, "hex": MINIMAL})
    assert outcome.verdict == "fail" and outcome.detail == "expected error frame.fields, but it encoded"
    assert any(line.split()[-3:] == ["version_major", "fixint", "3"] for line in outcome.diagnosis)
    assert any(line.startswith('fields: {"version_major"') for line in outcome.diagnosis)


# ---------------------------------------------------------------- annotation

def annotate(*args):
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(["annotate", *args], out, err)
    return code, out.getvalue(), err.getvalue()


def test_annotate_frame_prints_field_names_over_the_bytes():
    code, out, _ = annotate("--format", "frame", "--frame", "handshake-request", MINIMAL)
    assert code == 0
    assert [line.split()[0] for line in out.splitlines()] == ["0", "4", "8", "9", "10", "11", "12", "13", "14"]
    # columns: offset, bytes, field path, note (two spaces apart)
    assert [re.split(r"\s{2,}", line.strip())[2] for line in out.splitlines()] == [
        "magic", "length", "version_major", "version_minor", "version_patch", "client_code",
        "features.bin.header", "features.bin.length", "extensions count"]
    assert out.splitlines()[-1].endswith("extensions count  fixint 0")


def test_annotate_response_names_header_error_and_payload_fields():
    # flags 5: partition assignment timestamp and error; the error object's six values; no payload
    error = "d803" + "00" * 16 + "01" + "a3782e59" + "c0" + "c0" + "01" + "a178" + "c402 0102".replace(" ", "")
    body = bytes.fromhex("0105" + "07" + "08" + error)
    data = len(body).to_bytes(4, "big") + body
    segments, problem = frame_annotate.segments(data, "response")
    paths = [s.path.split(".")[0] if not s.path.startswith("error") else ".".join(s.path.split(".")[:2])
             for s in segments]
    assert problem is None
    for name in ("request_id", "flags", "partition_assignment_timestamp", "observable_timestamp", "error.trace_id",
                 "error.code", "error.class_name", "error.message", "error.stack_trace", "error.extensions count",
                 "error.extensions[0]"):
        assert name in paths, (name, paths)
    assert not any(p.startswith("payload") for p in paths)


@pytest.mark.parametrize("hex_, problem", [
    ("49474e4a0000000703000002c40000", "frame.magic"),
    ("49474e4980000000", "frame.length"),
    ("49474e490000000703000002c400", "malformed.truncated"),
    ("49474e490000000703000002c4000000", "frame.trailing"),
    ("49474e49000000070300000201c400", "frame.field-type"),       # features an int
    ("49474e490000000803000002c4000000", "frame.trailing"),       # a value after the last field
    ("49474e490000000703000002c40002", "malformed.truncated"),    # 2 extensions announced, none there
])
def test_annotation_says_where_a_frame_stops_fitting(hex_, problem):
    _, found = frame_annotate.segments(bytes.fromhex(hex_), "handshake-request")
    assert found is not None and problem in found, found


def test_annotate_frame_needs_the_kind():
    code, _, err = annotate("--format", "frame", MINIMAL)
    assert code == 2 and "needs --frame KIND" in err
    code, _, err = annotate("--format", "frame", "--frame", "no-such-kind", MINIMAL)
    assert code == 2


def test_annotate_sql_request_follows_the_features():
    # op 50, request 1, [direct_tx_mapping absent], tx nil, 5 nil options, 0 properties, empty bin, statement 'x',
    # arguments nil, observable 0, then partition_awareness true only with its feature
    body = bytes.fromhex("3201" + "c0" * 6 + "00" + "c400" + "a178" + "c0" + "00" + "c3")
    data = len(body).to_bytes(4, "big") + body
    with_feature, problem = frame_annotate.segments(data, "sql-execute-request", ["SQL_PARTITION_AWARENESS"])
    assert problem is None and with_feature[-1].path == "partition_awareness"
    without, problem = frame_annotate.segments(data, "sql-execute-request")
    assert "frame.trailing" in problem and without[-1].path.startswith("(after the last field")


def test_dashboard_hex_view_labels_frame_bytes_by_field():
    from dashboard import hexdump
    shown = hexdump.annotated(MINIMAL, focus=11, vector=vector())
    assert [r[3] for r in shown["ranges"]][:6] == ["magic", "length", "version_major", "version_minor",
                                                  "version_patch", "client_code"]
    assert shown["length"] == 15 and shown["error"] is None and shown["more"] == 0
    # a value vector's bytes keep their MessagePack paths
    assert hexdump.annotated("0102")["ranges"][0][3] == "[0]"


def frame_vectors():
    for path in sorted((REPO / "vectors").glob("frame-*.json")):
        yield from json.loads(path.read_text())["vectors"]


def known_disagreements():
    """Vector ids the reference runner lists as known failures (runners/python/expected-failures.txt, each with
    its reason): the harness's own layouts read those frames as the runner does."""
    lines = (REPO / "runners" / "python" / "expected-failures.txt").read_text().splitlines()
    return {line.split()[0] for line in lines if line.strip() and not line.startswith("#")}


def test_the_annotation_reads_every_frame_vector_as_the_corpus_does():
    """The harness's layouts (harness/frame_layouts.py), the registry's: on every frame vector they fit the valid bytes
    (canonical and variants) to the end, and stop on a must-reject frame naming the vector's error class, so a
    diagnosis never labels a byte with the wrong field."""
    vectors = list(frame_vectors())
    if not vectors:
        pytest.skip("no frame vectors in vectors/")
    skipped, checked = known_disagreements(), 0
    for v in vectors:
        features = v.get("features", ())
        if v["kind"] == "value":
            for hex_ in [v["canonical"]] + [x["hex"] for x in v["variants"]]:
                _, problem = frame_annotate.segments(bytes.fromhex(hex_), v["frame"], features)
                assert problem is None, (v["id"], hex_, problem)
                checked += 1
        elif v["kind"] == "decode-reject" and v["id"] not in skipped:
            _, problem = frame_annotate.segments(bytes.fromhex(v["hex"]), v["frame"], features)
            assert problem is not None and v["error"] in problem, (v["id"], v["error"], problem)
            checked += 1
    assert checked >= 1000
