"""The explicit byte builder for frames (spec.md 11): a message as named fields -> the
MessagePack values of its layout, in wire order, each as its own canonical bytes ("parts"), then the frame.

Written from the layouts (apache/ignite-3 ClientInboundMessageHandler, HandshakeUtils, TcpClientChannel), not from
any runner. Every value goes through encode.canonical (wire.py), so nothing here is shared with a runner either.
Parts keep a path ("extensions[1].value", "payload[0]", "error.code") so that sources can edit one value of a
valid frame (a reject, a variant) and so that a cut can be classified (inside a value, or between two).
"""
from . import encode, ignite, wire

MAGIC = bytes.fromhex("49474e49")   # "IGNI", ClientMessageCommon.MAGIC_BYTES
FRAMES = ignite.REGISTRY["frames"]
FEATURE_BIT = {f["name"]: f["bit"] for f in FRAMES["features"]}
FLAG = {f["name"]: f["bit_value"] for f in FRAMES["response_flags"]}
SERVER_OP_RESPONSE_ERROR = {f["name"]: f["bit_value"] for f in FRAMES["server_op_response_flags"]}["ERROR"]
SQL_FEATURES = ("SQL_DIRECT_TX_MAPPING", "SQL_MULTISTATEMENT_SUPPORT", "SQL_PARTITION_AWARENESS")
# Field widths (spec 11.1 FR-INT-RANGE): `int` is what Java reads with unpackInt (or narrower), `long` with unpackLong
INT64_MIN, INT64_MAX = -(2 ** 63), 2 ** 63 - 1
WIDTH = {"int": (-(2 ** 31), 2 ** 31 - 1), "long": (INT64_MIN, INT64_MAX)}
# The tx field's direct-mapping forms (ClientTxUtils: TX_ID_FIRST_DIRECT, TX_ID_DIRECT), registry frames.tx_ids
TX_ID = {t["name"]: t["id"] for t in FRAMES["tx_ids"]}


class FrameError(ignite.Invalid):
    pass


# --- layouts: (field, type, when) in wire order; `when(get, features)` says whether the field is present ------
def always(_get, _features):
    return True


def flag(bit):
    return lambda get, _f: bool(get("flags") & bit)


def no_error(get, _f):
    return not get("flags") & FLAG["ERROR"]


def handshake_ok(get, _f):
    return get("error") is None


def feature(name):
    return lambda _get, features: name in features


def tx_form(name, feature_name):
    """The direct-mapping form of `tx` (spec 11.6): with the feature negotiated, tx == TX_ID[name] brings more fields."""
    return lambda get, features: feature_name in features and get("tx") == TX_ID[name]


TX_FORMS = [("tx_observable_timestamp", "long", tx_form("FIRST_DIRECT", "TX_PIGGYBACK")),
            ("tx_read_only", "bool", tx_form("FIRST_DIRECT", "TX_PIGGYBACK")),
            ("tx_timeout", "long", tx_form("FIRST_DIRECT", "TX_PIGGYBACK")),
            ("tx_enlistment_token", "long", tx_form("DIRECT", "TX_DIRECT_MAPPING")),
            ("tx_id", "uuid", tx_form("DIRECT", "TX_DIRECT_MAPPING")),
            ("tx_commit_table_id", "int", tx_form("DIRECT", "TX_DIRECT_MAPPING")),
            ("tx_commit_partition", "int", tx_form("DIRECT", "TX_DIRECT_MAPPING")),
            ("tx_coordinator_id", "uuid", tx_form("DIRECT", "TX_DIRECT_MAPPING")),
            ("tx_timeout", "long", tx_form("DIRECT", "TX_DIRECT_MAPPING"))]


RESPONSE_HEAD = [("request_id", "long", always), ("flags", "int", always),
                 ("partition_assignment_timestamp", "long", flag(FLAG["PARTITION_ASSIGNMENT"])),
                 ("observable_timestamp", "long", always), ("error", "error", flag(FLAG["ERROR"]))]
OK = handshake_ok
LAYOUTS = {
    "handshake-request": [("version_major", "int", always), ("version_minor", "int", always),
                          ("version_patch", "int", always), ("client_code", "int", always),
                          ("features", "features", always), ("extensions", "extensions", always)],
    "handshake-response": [("version_major", "int", always), ("version_minor", "int", always),
                           ("version_patch", "int", always), ("error", "error-or-nil", always),
                           ("idle_timeout", "long", OK), ("node_id", "uuid", OK), ("node_name", "str", OK),
                           ("cluster_ids", "uuid-list", OK), ("cluster_name", "str", OK),
                           ("observable_timestamp", "long", OK), ("product_major", "int", OK),
                           ("product_minor", "int", OK), ("product_maintenance", "int", OK),
                           ("product_patch", "int?", OK), ("product_pre_release", "str?", OK),
                           ("features", "features", OK), ("extensions", "extensions", OK)],
    "request": [("op", "int", always), ("request_id", "long", always), ("payload", "payload", always)],
    "response": RESPONSE_HEAD + [
        ("server_op", "int", lambda get, f: bool(get("flags") & FLAG["SERVER_OP"]) and no_error(get, f)),
        ("payload", "payload", no_error)],
    "server-op-response": [("op", "int", always), ("request_id", "long", always), ("flags", "int", always),
                           ("error", "error", flag(SERVER_OP_RESPONSE_ERROR)),
                           ("payload", "payload", lambda get, _f: not get("flags") & SERVER_OP_RESPONSE_ERROR)],
    "tuple-request": [("op", "int", always), ("request_id", "long", always), ("table_id", "int", always),
                      ("tx", "long?", always)] + TX_FORMS + [("schema_version", "int", always),
                      ("no_value_set", "bitmask", always), ("tuple", "bin", always)],
    "tuple-upsert-response": RESPONSE_HEAD + [("schema_version", "int", no_error)],
    "tuple-get-response": RESPONSE_HEAD + [("schema_version", "int", no_error), ("tuple", "bin?", no_error)],
    "sql-execute-request": [
        ("op", "int", always), ("request_id", "long", always),
        ("direct_tx_mapping", "bool", feature("SQL_DIRECT_TX_MAPPING")), ("tx", "long?", always)] + TX_FORMS + [
        ("schema", "str?", always), ("page_size", "int?", always), ("query_timeout", "long?", always),
        ("idle_timeout", "long?", always), ("time_zone", "str?", always), ("property_count", "int", always),
        ("properties", "bin", always), ("query_modifiers", "int", feature("SQL_MULTISTATEMENT_SUPPORT")),
        ("statement", "str", always), ("arguments_count", "int?", always),
        ("arguments_tuple", "bin", lambda get, _f: get("arguments_count") not in (None, 0)),
        ("observable_timestamp", "long", always),
        ("partition_awareness", "bool", feature("SQL_PARTITION_AWARENESS"))],
    # The response to a request whose tx was FIRST_DIRECT (-1) or DIRECT (0): writeTxMeta's fields, then the op's own
    "tx-piggyback-response": RESPONSE_HEAD + [
        ("tx_resource_id", "long", no_error), ("tx_id", "uuid", no_error), ("tx_coordinator_id", "uuid", no_error),
        ("tx_timeout", "long", no_error), ("payload", "payload", no_error)],
    "tx-direct-response": RESPONSE_HEAD + [
        ("tx_primary_node", "str", no_error), ("tx_enlistment_token", "long", no_error), ("tx_noop", "bool", no_error),
        ("payload", "payload", no_error)],
}
HANDSHAKES = ("handshake-request", "handshake-response")
ERROR_MEMBERS = [("trace_id", "uuid"), ("code", "int"), ("class_name", "str"), ("message", "str?"),
                 ("stack_trace", "str?"), ("extensions", "error-extensions")]


def present_fields(kind: str, fields: dict, features) -> list[tuple[str, str]]:
    """(name, type) of the fields the message has, given the flags / error / features the fields hold."""
    def get(name):
        if name not in fields:
            raise FrameError("frame.fields", f"{kind}: field {name!r} is missing (other fields depend on it)")
        x = fields[name]
        if name == "error":                        # presence asks only whether it is nil; its type is checked later
            return None if x == {"type": "nil"} else x
        if name == "arguments_count":              # nil, 0 (no tuple) or anything else, its type checked later
            return None if x == {"type": "nil"} else 0 if typed("int", x) and str(x.get("value")) == "0" else x
        allowed = ("int", "nil") if name == "tx" else ("int",)        # tx is long?, flags an int
        if not (isinstance(x, dict) and x.get("type") in allowed):
            raise FrameError("frame.field-type", f"{kind}: field {name!r} must be an int{' or nil' if name == 'tx' else ''}")
        return None if x["type"] == "nil" else int(x["value"])
    out = [(name, t) for name, t, when in LAYOUTS[kind] if when(get, set(features))]
    return list(dict.fromkeys(out))   # tx_timeout is in both tx forms (at most one applies)


# --- field values -> parts ----------------------------------------------------------------------------------
def typed(t: str, x) -> bool:
    """Is x, a typed value (schema/value.schema.json), of frame field type t (int, long, bool, str, bin, uuid, bitmask)?"""
    t = "int" if t == "long" else t
    return isinstance(x, dict) and x.get("type") == t and (t not in ("uuid", "bitmask") or x.get("era") == "3.0")


def value_part(path: str, t: str, x) -> list[tuple[str, bytes]]:
    nullable = t.endswith("?")
    base = t.rstrip("?")
    if nullable and x == {"type": "nil"}:
        return [(path, wire.NIL)]
    if not typed(base, x):
        raise FrameError("frame.field-type", f"{path} must be {t}, not {x!r:.80}")
    if base in WIDTH:
        low, high = WIDTH[base]
        if not low <= int(x["value"]) <= high:
            raise FrameError("unrepresentable", f"{path}: {x['value']} is outside the field's {base} ({low}..{high})")
    return [(path, encode.canonical(x))]


def count_part(path: str, n: int) -> tuple[str, bytes]:
    return (f"{path}.count", wire.integer(n))


def features_bin(bits) -> bytes:
    """java.util.BitSet.toByteArray: bit i in byte i/8, least significant bit first; no trailing zero bytes."""
    if not (isinstance(bits, list) and all(isinstance(b, int) and not isinstance(b, bool) and b >= 0 for b in bits)
            and bits == sorted(set(bits))):
        raise FrameError("frame.field-type", f"features must be ascending bit indices, not {bits!r:.80}")
    data = bytearray((max(bits) // 8 + 1) if bits else 0)
    for b in bits:
        data[b // 8] |= 1 << (b % 8)
    return wire.bin_header(len(data)) + bytes(data)


def extension_parts(path: str, pairs) -> list[tuple[str, bytes]]:
    if not isinstance(pairs, list) or not all(isinstance(p, list) and len(p) == 2 and isinstance(p[0], str) for p in pairs):
        raise FrameError("frame.field-type", f"{path} must be [key, typed value] pairs, not {pairs!r:.80}")
    out = [count_part(path, len(pairs))]
    for i, (key, x) in enumerate(pairs):
        out.append((f"{path}[{i}].key", encode.canonical({"type": "str", "value": key})))
        out.append((f"{path}[{i}].value", encode.canonical(x)))
    return out


def error_parts(path: str, err) -> list[tuple[str, bytes]]:
    if not isinstance(err, dict) or "type" in err:   # a typed value (no error member is called "type")
        raise FrameError("frame.field-type", f"{path} must be an error object, not {err!r:.80}")
    names = [m for m, _t in ERROR_MEMBERS]
    if sorted(err) != sorted(names):
        raise FrameError("frame.fields", f"{path} must have exactly the members {names}, has {sorted(err)}")
    return [p for m, t in ERROR_MEMBERS for p in field_parts(f"{path}.{m}", t, err[m])]


def field_parts(path: str, t: str, x) -> list[tuple[str, bytes]]:
    if t == "features":
        return [(path, features_bin(x))]
    if t == "extensions":
        return extension_parts(path, x)
    if t == "error-extensions":
        return [(path, wire.NIL)] if x == {"type": "nil"} else extension_parts(path, x)
    if t == "error-or-nil":
        return [(path, wire.NIL)] if x == {"type": "nil"} else error_parts(path, x)
    if t == "error":
        return error_parts(path, x)
    if t == "uuid-list":
        if not isinstance(x, list):
            raise FrameError("frame.field-type", f"{path} must be a list of uuids")
        return [count_part(path, len(x))] + [p for i, u in enumerate(x) for p in value_part(f"{path}[{i}]", "uuid", u)]
    if t == "payload":
        if not isinstance(x, list):
            raise FrameError("frame.field-type", f"{path} must be a list of typed values")
        return [(f"{path}[{i}]", encode.canonical(v)) for i, v in enumerate(x)]
    return value_part(path, t, x)


def parts(kind: str, fields: dict, features=()) -> list[tuple[str, bytes]]:
    """The message's MessagePack values in wire order, as (path, canonical bytes). Checks, in spec.md 11.1
    order: the fields fit the layout (frame.fields), each is of its type (frame.field-type), the values encode."""
    if kind not in LAYOUTS:
        raise FrameError("frame.fields", f"unknown frame kind {kind!r}")
    unknown = sorted(set(features) - set(FEATURE_BIT))
    if unknown:
        raise FrameError("frame.fields", f"unknown feature names {unknown}")
    present = present_fields(kind, fields, features)
    names = [n for n, _t in present]
    missing = [n for n in names if n not in fields]
    extra = sorted(set(fields) - set(names))
    if missing or extra:
        raise FrameError("frame.fields", f"{kind}: missing {missing}, not in this message {extra}")
    out = [p for name, t in present for p in field_parts(name, t, fields[name])]
    return out


def frame(kind: str, body: bytes, length: int | None = None, magic: bytes | None = None) -> bytes:
    """Magic (handshake kinds), the 4-byte big-endian signed length (default: the body's), the body."""
    head = (MAGIC if magic is None else magic) if kind in HANDSHAKES else b""
    return head + wire.be(len(body) if length is None else length, 4, signed=length is not None and length < 0) + body


def header_size(kind: str) -> int:
    return (len(MAGIC) if kind in HANDSHAKES else 0) + 4


def complete_after(kind: str, fields: dict, features, part_paths: list[str]) -> int:
    """How many leading parts make a complete message: all of them, or for kinds ending in a payload the parts
    before it (a payload may have any number of values, so a cut between payload values leaves a valid message)."""
    if any(n == "payload" for n, _t in present_fields(kind, fields, features)):
        return next((i for i, p in enumerate(part_paths) if p.startswith("payload[")), len(part_paths))
    return len(part_paths)
