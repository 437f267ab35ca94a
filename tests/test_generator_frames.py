"""The frame builder (generator/frames.py) and the frame source notation (generator/frame_sources.py): the facts the
corpus's frame bytes rest on, each checked against bytes written out by hand or cited from apache/ignite-3."""

import pytest

from generator import frame_sources, frames
from generator.sources import SourceError

INT = lambda n: {"type": "int", "value": str(n)}  # noqa: E731
NIL = {"type": "nil"}
MINIMAL = {"version_major": INT(3), "version_minor": INT(0), "version_patch": INT(0), "client_code": INT(2),
           "features": [], "extensions": []}


def frame_hex(kind, fields, features=()):
    return frames.frame(kind, b"".join(b for _p, b in frames.parts(kind, fields, features))).hex()


def test_the_minimal_handshake_is_upstreams_bytes():
    # ItClientHandlerTestUtils.writeHandshake (apache/ignite-3@d46ac208937)
    assert frame_hex("handshake-request", MINIMAL) == "49474e49" "00000007" "03000002c40000"


@pytest.mark.parametrize("bits, hex_", [([], "c400"), ([0], "c40101"), ([0, 9], "c4020102"), ([7], "c40180"),
                                        ([0, 1, 2] + list(range(32, 48)), "c40607000000ffff"), ([64], "c409" + "00" * 8 + "01")])
def test_features_are_bitset_to_byte_array(bits, hex_):
    """java.util.BitSet.toByteArray: bit i in byte i/8 at bit i%8, no trailing zero bytes (07 00 00 00 ff ff is the
    .NET test of IGNITE-27886)."""
    assert frames.features_bin(bits).hex() == hex_


def test_response_layout_follows_the_flags():
    err = {"trace_id": {"type": "uuid", "era": "3.0", "value": "00000000-0000-0000-0000-000000000001"},
           "code": INT(1), "class_name": {"type": "str", "value": "E"}, "message": NIL, "stack_trace": NIL,
           "extensions": NIL}
    ok = {"request_id": INT(-1), "flags": INT(9), "partition_assignment_timestamp": INT(5),
          "observable_timestamp": INT(6), "server_op": INT(1), "payload": [INT(7)]}
    assert frame_hex("response", ok) == "00000006" "ff09050601" "07"
    failed = {"request_id": INT(1), "flags": INT(12), "observable_timestamp": INT(2), "error": err}
    # flag 4: the error object ends the message (no server_op even with flag 8, no payload)
    # the trace id: ext 3, the uuid's two halves each little-endian (era 3.0)
    assert frame_hex("response", failed) == "0000001b" "010c02" "d803" + "00" * 8 + "01" + "00" * 7 + "01a145c0c0c0"


@pytest.mark.parametrize("fields, error", [
    ({k: v for k, v in MINIMAL.items() if k != "features"}, "frame.fields"),
    ({**MINIMAL, "payload": []}, "frame.fields"),
    ({**MINIMAL, "client_code": {"type": "str", "value": "2"}}, "frame.field-type"),
    ({**MINIMAL, "client_code": INT(2 ** 63)}, "unrepresentable"),
    ({**MINIMAL, "features": [9, 0]}, "frame.field-type"),
])
def test_the_builder_refuses_fields_as_an_encoder_must(fields, error):
    with pytest.raises(frames.FrameError if error != "unrepresentable" else frames.ignite.Invalid) as e:
        frames.parts("handshake-request", fields)
    assert e.value.error_class == error


def test_feature_dependent_sql_fields():
    base = {"op": INT(50), "request_id": INT(1), "tx": NIL, "schema": NIL, "page_size": NIL, "query_timeout": NIL,
            "idle_timeout": NIL, "time_zone": NIL, "property_count": INT(0), "properties": {"type": "bin", "hex": ""},
            "statement": {"type": "str", "value": "S"}, "arguments_count": NIL, "observable_timestamp": INT(0)}
    assert frame_hex("sql-execute-request", base) == "0000000f" "3201c0c0c0c0c0c000c400a153c000"
    with_all = {**base, "direct_tx_mapping": {"type": "bool", "value": True}, "query_modifiers": INT(1),
                "partition_awareness": {"type": "bool", "value": False}}
    assert frame_hex("sql-execute-request", with_all, frames.SQL_FEATURES) == \
        "00000012" "3201c3c0c0c0c0c0c000c40001a153c000c2"
    with pytest.raises(frames.FrameError):
        frames.parts("sql-execute-request", with_all)     # the three fields without their features


def test_value_ends_walks_whole_values_and_refuses_a_cut():
    assert frame_sources.value_ends(bytes.fromhex("c0 92 01 a161 81 a0 c0 c7 01 2a 00")) == [1, 5, 8, 12]
    for cut in ("92 01", "a2 61", "c4 02 01", "d8 03 00", "de 00 01 c0"):
        with pytest.raises(ValueError):
            frame_sources.value_ends(bytes.fromhex(cut))


def test_a_cut_is_classified_by_value_boundaries():
    fields = {"op": INT(51), "request_id": INT(1000), "payload": [INT(1), {"type": "str", "value": "ab"}]}
    ps = frames.parts("request", fields)      # 33 | cd 03 e8 | 01 | a2 61 62
    classes = [frame_sources.cut_class("request", fields, (), ps, k, trailing=False) for k in range(9)]
    assert classes == ["malformed.truncated"] * 2 + ["malformed.truncated"] * 2 + [None, None] + ["malformed.truncated"] * 2 + [None]
    assert frame_sources.cut_class("request", fields, (), ps, 5, trailing=True) == "frame.trailing"


def test_a_set_edit_must_be_one_value():
    ps = frames.parts("handshake-request", MINIMAL)
    assert frame_sources.edited(ps, {"set": {"features": "a0"}}, {})[4] == ("features", b"\xa0")
    with pytest.raises(SourceError):
        frame_sources.edited(ps, {"set": {"features": "a3616263ff"}}, {})   # a str and a second value
    with pytest.raises(SourceError):
        frame_sources.edited(ps, {"set": {"features": "a3"}}, {})           # a cut value
