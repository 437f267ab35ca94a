"""The frame strategy (issue 29): random messages of every kind (spec.md 11) as fuzz elements, and their vectors.

An element is ("3.0", {"frame", "features", "fields"}, "frame"). The fields are drawn for the whole layout and cut
to the ones the drawn flags / error / features give the message (generator/frames.py decides, as for the corpus);
about 1 in 16 loses one of its fields, a message every encoder must refuse (frame.fields). The bytes come from
generator/frames.py, so a disagreement is a runner's: check.py sends encode, decode and a strict prefix (the declared
length kept: malformed.truncated) to every runner, as for values.
"""

import zlib

from hypothesis import strategies as st

from generator import frames

from fuzz import strategies as values_st
from fuzz.strategies import edged, named

ERA = "3.0"
INT64 = (frames.INT64_MIN, frames.INT64_MAX)
ints64 = edged([0, 1, -1, 127, 128, -33, 255, 256, 65535, 65536, 2 ** 31, -(2 ** 31), *INT64],
               st.integers(*INT64)).map(named(lambda n: {"type": "int", "value": str(n)}))
nil = st.just({"type": "nil"})
texts = st.one_of(st.text(max_size=12), st.text(alphabet=values_st.UTF8_EDGE_CHARS, max_size=6)).map(
    named(lambda s: {"type": "str", "value": s}))
blobs = st.binary(max_size=24).map(named(lambda b: {"type": "bin", "hex": b.hex()}))
uuid_values = values_st.uuids.map(named(lambda u: {"type": "uuid", "era": ERA, "value": u}))
bitmasks = values_st.bitsets.map(named(lambda bits: {"type": "bitmask", "era": ERA, "bits": bits}))
any_values = values_st.values(ERA)
features = edged([[], [0], list(range(12)), list(range(19)), [0, 33], [64], [9, 200]],
                 st.lists(st.integers(0, 150), max_size=8, unique=True).map(sorted))
pairs = st.lists(st.tuples(st.one_of(st.sampled_from([e["key"] for e in frames.FRAMES["handshake_extensions"]]
                                                     + [e["key"] for e in frames.FRAMES["error_extensions"]]),
                                     st.text(max_size=10)), any_values).map(list), max_size=3)
errors = st.fixed_dictionaries({"trace_id": uuid_values, "code": ints64, "class_name": texts,
                                "message": st.one_of(nil, texts), "stack_trace": st.one_of(nil, texts),
                                "extensions": st.one_of(nil, pairs)})
FLAGS = edged([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 16, 2 ** 30, 2 ** 31 - 1], st.integers(0, 2 ** 31 - 1))

FIELD_TYPES = {
    "int": ints64, "long": ints64, "bool": st.booleans().map(named(lambda b: {"type": "bool", "value": b})), "str": texts,
    "bin": blobs, "uuid": uuid_values, "bitmask": bitmasks, "features": features, "extensions": pairs,
    "error-extensions": st.one_of(nil, pairs), "uuid-list": st.lists(uuid_values, max_size=3), "error": errors,
    "error-or-nil": st.one_of(nil, errors), "payload": st.lists(any_values, max_size=4),
}


def field_strategy(name, t):
    if name == "flags":
        return FLAGS.map(named(lambda n: {"type": "int", "value": str(n)}))
    if t.endswith("?"):
        return st.one_of(nil, FIELD_TYPES[t[:-1]])
    return FIELD_TYPES[t]


def fitted(draw):
    kind, feats, candidates, drop = draw
    fields = {name: candidates[name] for name, _t in frames.present_fields(kind, candidates, feats)}
    if drop is not None and fields:
        del fields[sorted(fields)[drop % len(fields)]]
    return (ERA, {"frame": kind, "features": feats, "fields": fields}, "frame")


# The features that change a kind's layout: the SQL ones, and the two that bring tx's direct-mapping forms.
TX_FEATURES = ("TX_DIRECT_MAPPING", "TX_PIGGYBACK")
LAYOUT_FEATURES = {"sql-execute-request": frames.SQL_FEATURES + TX_FEATURES, "tuple-request": TX_FEATURES}


def message(kind):
    layout = frames.LAYOUTS[kind]
    known = LAYOUT_FEATURES.get(kind, ())
    feats = (st.lists(st.sampled_from(known), unique=True).map(named(lambda fs: [f for f in known if f in fs]))
             if known else st.just([]))
    candidates = st.fixed_dictionaries({name: field_strategy(name, t) for name, t, _when in layout})
    drop = st.integers(0, 15).flatmap(named(lambda i: st.integers(0, 63) if i == 15 else st.none()))
    return st.tuples(st.just(kind), feats, candidates, drop).map(named(fitted))


elements = st.sampled_from(sorted(frames.LAYOUTS)).flatmap(message)


def vector_pair(i, message_):
    """(value or encode-reject vector, truncation or None), as check.vectors() makes for values."""
    kind, feats, fields = message_["frame"], message_["features"], message_["fields"]
    base = {"id": f"fuzz.{i}", "era": ERA, "level": "must", "rules": [], "since": "0", "format": "frame",
            "frame": kind, **({"features": feats} if feats else {}), "fields": fields}
    try:
        data = frames.frame(kind, b"".join(b for _p, b in frames.parts(kind, fields, feats)))
    except frames.ignite.Invalid as e:
        return {**base, "kind": "encode-reject", "error": e.error_class}, None
    cut = {k: v for k, v in base.items() if k != "fields"}
    cut.update(kind="decode-reject", hex=data[:1 + zlib.crc32(data) % (len(data) - 1)].hex(), error="malformed.truncated")
    return {**base, "kind": "value", "canonical": data.hex(), "variants": []}, cut


PRIMARY = {"handshake-request": "FR-HS-REQUEST", "handshake-response": "FR-HS-RESPONSE", "request": "FR-REQUEST",
           "response": "FR-RESPONSE", "server-op-response": "FR-SERVER-OP-RESPONSE",
           "tuple-request": "FR-TUPLE-REQUEST", "tuple-upsert-response": "FR-TUPLE-RESPONSE",
           "tuple-get-response": "FR-TUPLE-RESPONSE", "sql-execute-request": "FR-SQL-EXECUTE",
           "tx-piggyback-response": "FR-TX-META", "tx-direct-response": "FR-TX-META"}


def notation(fields, typed_notation, dollar):
    """Typed fields -> the frame source notation (generator/frame_sources.py reads it back)."""
    def one(x):
        if isinstance(x, list):   # features (ints), pairs ([key, value]), uuid-list / payload (values)
            return [x_ if isinstance(x_, int) else [dollar(x_[0]), typed_notation(x_[1])] if isinstance(x_, list)
                    else typed_notation(x_) for x_ in x]
        if "type" not in x:      # the error object
            return {k: one(v) for k, v in x.items()}
        return typed_notation(x)
    return {name: one(x) for name, x in fields.items()}


def source_case(message_, vector, typed_notation, dollar):
    """The case (frame, features, fields, rules) of a regression source for one frame element."""
    rule = "FR-ENCODE-FIELDS" if vector["kind"] == "encode-reject" else PRIMARY[message_["frame"]]
    return {"rules": [rule], "frame": message_["frame"], "features": message_["features"],
            "fields": notation(message_["fields"], typed_notation, dollar)}
