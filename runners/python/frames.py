"""Ignite 3 client frames (FRAMES.md, spec.md frames chapter) <-> named fields, on the runner's value codec.

A frame is [IGNI magic, handshake kinds only] + 4-byte big-endian length + that many bytes of MessagePack: a
sequence of values laid out by the message kind (LAYOUTS). Decoding reads the whole sequence with codec.decode and
walks the layout over the value list (Cursor); encoding checks the fields against the layout, lays out typed values
in wire order (Writer) and writes them with codec.encode. No count or declared length is ever used to allocate."""
import codec
from ignite_ext import INT32, INT64, REGISTRY, WireError, check, in_range

ERA = "3.0"
MAGIC = b"IGNI"                      # 49 47 4e 49, before the length of both handshake messages (spec FR-MAGIC)
LENGTH_BYTES = 4
# The registry's values (schema/registry.json frames): response flags and the SERVER_OP_RESPONSE ERROR flag
RESPONSE_FLAGS = {f["name"]: f["bit_value"] for f in REGISTRY["frames"]["response_flags"]}
PARTITION_ASSIGNMENT = RESPONSE_FLAGS["PARTITION_ASSIGNMENT"]
NOTIFICATION = RESPONSE_FLAGS["NOTIFICATION"]      # adds no field: a notification is its payload
ERROR = RESPONSE_FLAGS["ERROR"]
SERVER_OP = RESPONSE_FLAGS["SERVER_OP"]
SERVER_OP_RESPONSE_ERROR = {f["name"]: f["bit_value"] for f in REGISTRY["frames"]["server_op_response_flags"]}["ERROR"]
# The features sql-execute-request reads (registry frames.features[].name)
FEATURES = {f["name"] for f in REGISTRY["frames"]["features"]}
SQL_DIRECT_TX_MAPPING = "SQL_DIRECT_TX_MAPPING"
SQL_MULTISTATEMENT_SUPPORT = "SQL_MULTISTATEMENT_SUPPORT"
SQL_PARTITION_AWARENESS = "SQL_PARTITION_AWARENESS"
assert {SQL_DIRECT_TX_MAPPING, SQL_MULTISTATEMENT_SUPPORT, SQL_PARTITION_AWARENESS} <= FEATURES, "registry features"
# The direct-mapping forms of tx (spec 11.6): registry frames.tx_ids, each brought by its feature
TX_IDS = {t["name"]: t["id"] for t in REGISTRY["frames"]["tx_ids"]}
TX_PIGGYBACK, TX_DIRECT_MAPPING = "TX_PIGGYBACK", "TX_DIRECT_MAPPING"
assert {TX_PIGGYBACK, TX_DIRECT_MAPPING} <= FEATURES, "registry features"
# FR-INT-RANGE: an int field is what Java reads with unpackInt, a long field with unpackLong
RANGES = {"int": INT32, "long": INT64}

NIL = {"type": "nil"}


# ---------------------------------------------------------------- layouts: (field, type, when) in wire order
# A type ending in '?' may be nil. `when(fields, features)` sees the fields laid out so far (typed values).

def flags_of(f):
    v = f["flags"]     # KeyError when missing: encode reports the missing field
    check(isinstance(v, dict) and v.get("type") == "int", "frame.field-type", f"flags: expected int, got {describe(v)}")
    return int(v["value"])


def flag(bit):
    return lambda f, _: flags_of(f) & bit != 0


def no_flag(bit):
    return lambda f, _: flags_of(f) & bit == 0


def feature(name):
    return lambda _, features: name in features


def always(_f, _features):
    return True


def is_nil(v):
    return isinstance(v, dict) and v.get("type") == "nil"


def handshake_ok(f, _):
    return is_nil(f["error"])


def server_op(f, _):
    return flags_of(f) & (SERVER_OP | ERROR) == SERVER_OP


def has_arguments(f, _):
    """arguments_tuple follows a count that is neither nil nor 0 (a count of another type brings it too)."""
    v = f["arguments_count"]
    return not is_nil(v) and not (isinstance(v, dict) and v.get("type") == "int" and str(v.get("value")) == "0")


def tx_form(tx_id, feature_name):
    """With the feature negotiated, a tx of this id brings its fields; a tx neither int nor nil is frame.field-type."""
    def when(f, features):
        if feature_name not in features:
            return False
        v = f["tx"]
        check(isinstance(v, dict) and v.get("type") in ("int", "nil"), "frame.field-type",
              f"tx: expected int or nil, got {describe(v)}")
        return v["type"] == "int" and int(v["value"]) == tx_id
    return when


PIGGYBACK = tx_form(TX_IDS["FIRST_DIRECT"], TX_PIGGYBACK)
DIRECT = tx_form(TX_IDS["DIRECT"], TX_DIRECT_MAPPING)
TX_FORMS = [("tx_observable_timestamp", "long", PIGGYBACK), ("tx_read_only", "bool", PIGGYBACK),
            ("tx_timeout", "long", PIGGYBACK), ("tx_enlistment_token", "long", DIRECT), ("tx_id", "uuid", DIRECT),
            ("tx_commit_table_id", "int", DIRECT), ("tx_commit_partition", "int", DIRECT),
            ("tx_coordinator_id", "uuid", DIRECT), ("tx_timeout", "long", DIRECT)]


ERROR_OBJECT = [("trace_id", "uuid", always), ("code", "int", always), ("class_name", "str", always),
                ("message", "str?", always), ("stack_trace", "str?", always), ("extensions", "extensions?", always)]

RESPONSE_HEADER = [("request_id", "long", always), ("flags", "int", always),
                   ("partition_assignment_timestamp", "long", flag(PARTITION_ASSIGNMENT)),
                   ("observable_timestamp", "long", always), ("error", "error", flag(ERROR))]


def fields(*names, type_="int", when=always):
    return [(name, type_, when) for name in names]


LAYOUTS = {
    "handshake-request": fields("version_major", "version_minor", "version_patch", "client_code") + [
        ("features", "features", always), ("extensions", "extensions", always)],
    "handshake-response": fields("version_major", "version_minor", "version_patch") + [
        ("error", "error?", always)] + fields("idle_timeout", type_="long", when=handshake_ok) + [
        ("node_id", "uuid", handshake_ok), ("node_name", "str", handshake_ok),
        ("cluster_ids", "uuid-list", handshake_ok), ("cluster_name", "str", handshake_ok)] + fields(
        "observable_timestamp", type_="long", when=handshake_ok) + fields("product_major", "product_minor", "product_maintenance", when=handshake_ok) + [
        ("product_patch", "int?", handshake_ok), ("product_pre_release", "str?", handshake_ok),
        ("features", "features", handshake_ok), ("extensions", "extensions", handshake_ok)],
    "request": fields("op") + fields("request_id", type_="long") + [("payload", "payload", always)],
    "response": RESPONSE_HEADER + [("server_op", "int", server_op), ("payload", "payload", no_flag(ERROR))],
    "server-op-response": fields("op") + fields("request_id", type_="long") + fields("flags") + [
        ("error", "error", flag(SERVER_OP_RESPONSE_ERROR)), ("payload", "payload", no_flag(SERVER_OP_RESPONSE_ERROR))],
    "tuple-request": fields("op") + fields("request_id", type_="long") + fields("table_id") + [
        ("tx", "long?", always)] + TX_FORMS + fields("schema_version") + [
        ("no_value_set", "bitmask", always), ("tuple", "bin", always)],
    "tuple-upsert-response": RESPONSE_HEADER + fields("schema_version", when=no_flag(ERROR)),
    "tuple-get-response": RESPONSE_HEADER + fields("schema_version", when=no_flag(ERROR)) + [
        ("tuple", "bin?", no_flag(ERROR))],
    "sql-execute-request": fields("op") + fields("request_id", type_="long") + [
        ("direct_tx_mapping", "bool", feature(SQL_DIRECT_TX_MAPPING)), ("tx", "long?", always)] + TX_FORMS + [
        ("schema", "str?", always), ("page_size", "int?", always), ("query_timeout", "long?", always),
        ("idle_timeout", "long?", always), ("time_zone", "str?", always), ("property_count", "int", always),
        ("properties", "bin", always), ("query_modifiers", "int", feature(SQL_MULTISTATEMENT_SUPPORT)),
        ("statement", "str", always), ("arguments_count", "int?", always),
        ("arguments_tuple", "bin", has_arguments), ("observable_timestamp", "long", always),
        ("partition_awareness", "bool", feature(SQL_PARTITION_AWARENESS))],
    # The response to a request whose tx was FIRST_DIRECT / DIRECT: writeTxMeta's fields, then the op's payload
    "tx-piggyback-response": RESPONSE_HEADER + [
        ("tx_resource_id", "long", no_flag(ERROR)), ("tx_id", "uuid", no_flag(ERROR)),
        ("tx_coordinator_id", "uuid", no_flag(ERROR)), ("tx_timeout", "long", no_flag(ERROR)),
        ("payload", "payload", no_flag(ERROR))],
    "tx-direct-response": RESPONSE_HEADER + [
        ("tx_primary_node", "str", no_flag(ERROR)), ("tx_enlistment_token", "long", no_flag(ERROR)),
        ("tx_noop", "bool", no_flag(ERROR)), ("payload", "payload", no_flag(ERROR))],
}
HANDSHAKES = frozenset(("handshake-request", "handshake-response"))
SCALARS = frozenset(("int", "bool", "str", "bin", "uuid", "bitmask"))     # plus long: an int of the wider range


def layout(kind):
    if kind not in LAYOUTS:
        raise NotImplementedError(f"unknown frame kind {kind!r}")
    return LAYOUTS[kind]


# ---------------------------------------------------------------- decode

class Cursor:
    """The frame's values in order; every read names the field it is for, so an error says where."""
    __slots__ = ("values", "pos")

    def __init__(self, values):
        self.values, self.pos = values, 0

    def next(self, field):
        if self.pos >= len(self.values):
            raise WireError("malformed.truncated", f"{field}: the frame ends before it ({len(self.values)} values)")
        self.pos += 1
        return self.values[self.pos - 1]

    def peek_nil(self):
        return self.pos < len(self.values) and self.values[self.pos]["type"] == "nil"

    def typed(self, field, type_):
        v = self.next(field)
        check(v["type"] == type_, "frame.field-type", f"{field}: expected {type_}, got {v['type']}")
        return v

    def count(self, field):
        n = int(self.typed(field, "int")["value"])
        check(n >= 0, "frame.field-type", f"{field}: negative count {n}")
        return n


def read(cur, field, type_):
    """The field's value in the fields notation."""
    if type_.endswith("?"):
        if cur.peek_nil():
            return cur.next(field)
        type_ = type_[:-1]
    if type_ in RANGES:
        v = cur.typed(field, "int")
        check(in_range(int(v["value"]), RANGES[type_]), "frame.field-type",
              f"{field}: {v['value']} is outside the field's {type_} range (FR-INT-RANGE)")
        return v
    if type_ in SCALARS:
        return cur.typed(field, type_)
    if type_ == "features":
        raw = bytes.fromhex(cur.typed(field, "bin")["hex"])
        return [8 * i + j for i, byte in enumerate(raw) for j in range(8) if byte >> j & 1]
    if type_ == "extensions":
        pairs = []
        for i in range(cur.count(f"{field} count")):    # one pair per loop: a count over the values runs out
            key = cur.typed(f"{field}[{i}] key", "str")["value"]
            pairs.append([key, cur.next(f"{field}[{i}] value")])
        return pairs
    if type_ == "uuid-list":
        return [cur.typed(f"{field}[{i}]", "uuid") for i in range(cur.count(f"{field} count"))]
    if type_ == "error":
        return read_layout(cur, ERROR_OBJECT, (), prefix=f"{field}.")
    assert type_ == "payload", type_
    rest = cur.values[cur.pos:]
    cur.pos = len(cur.values)
    return rest


def read_layout(cur, fields_layout, features, prefix=""):
    out = {}
    for name, type_, when in fields_layout:
        if when(out, features):
            out[name] = read(cur, prefix + name, type_)
    return out


def decode(kind, data, features=()):
    fields_layout = layout(kind)
    pos = 0
    if kind in HANDSHAKES:
        check(len(data) >= len(MAGIC), "malformed.truncated", f"{len(data)} bytes: the magic needs 4")
        check(data[:4] == MAGIC, "frame.magic", f"magic {data[:4].hex()}, not {MAGIC.hex()}")
        pos = len(MAGIC)
    check(len(data) >= pos + LENGTH_BYTES, "malformed.truncated", "input ends inside the 4-byte length")
    length = int.from_bytes(data[pos:pos + LENGTH_BYTES], "big", signed=True)
    check(length >= 0, "frame.length", f"negative length {length}")
    pos += LENGTH_BYTES
    check(len(data) - pos >= length, "malformed.truncated", f"length {length}, {len(data) - pos} bytes follow")
    cur = Cursor(codec.decode(data[pos:pos + length], ERA))
    out = read_layout(cur, fields_layout, frozenset(features))
    check(cur.pos == len(cur.values), "frame.trailing",
          f"{len(cur.values) - cur.pos} values after the last field of {kind}")
    check(pos + length == len(data), "frame.trailing", f"{len(data) - pos - length} bytes after the frame")
    return out


# ---------------------------------------------------------------- encode

def is_int(x):
    return type(x) is int


class Writer:
    """The typed values of a frame in wire order, each checked against its field's type."""
    __slots__ = ("values",)

    def __init__(self):
        self.values = []

    def typed(self, field, type_, v):
        wire_type = "int" if type_ in RANGES else type_
        check(isinstance(v, dict) and v.get("type") == wire_type, "frame.field-type",
              f"{field}: expected a typed {wire_type}, got {describe(v)}")
        # Every int of a layout is a Java int or long (FR-INT-RANGE): a value outside it has no field to go in.
        check(type_ not in RANGES or in_range(int(v["value"]), RANGES[type_]), "unrepresentable",
              f"{field}: {v.get('value')} is outside the field's {type_} range")
        self.values.append(v)

    def count(self, n):
        self.values.append({"type": "int", "value": str(n)})

    def write(self, field, type_, v):
        if type_.endswith("?"):
            if is_nil(v):
                self.values.append(v)
                return
            type_ = type_[:-1]
        if type_ in SCALARS or type_ in RANGES:
            self.typed(field, type_, v)
        elif type_ == "features":
            check(isinstance(v, list) and all(is_int(i) and i >= 0 for i in v), "frame.field-type",
                  f"{field}: expected an array of bit indices, got {describe(v)}")
            check(all(a < b for a, b in zip(v, v[1:])), "frame.field-type",
                  f"{field}: bit indices {v} are not strictly ascending (FR-FEATURES-ORDER)")
            raw = bytearray(max(v) // 8 + 1 if v else 0)     # minimal: the highest set bit is in the last byte
            for i in v:
                raw[i // 8] |= 1 << (i % 8)
            self.values.append({"type": "bin", "hex": raw.hex()})
        elif type_ == "extensions":
            check(isinstance(v, list) and all(isinstance(p, list) and len(p) == 2 and isinstance(p[0], str)
                                              and isinstance(p[1], dict) for p in v), "frame.field-type",
                  f"{field}: expected an array of [key, typed value] pairs, got {describe(v)}")
            self.count(len(v))
            for key, value in v:
                self.values += ({"type": "str", "value": key}, value)
        elif type_ == "uuid-list":
            check(isinstance(v, list), "frame.field-type", f"{field}: expected an array of uuids, got {describe(v)}")
            self.count(len(v))
            for i, item in enumerate(v):
                self.typed(f"{field}[{i}]", "uuid", item)
        elif type_ == "error":
            check(isinstance(v, dict) and "type" not in v, "frame.field-type",
                  f"{field}: expected an error object, got {describe(v)}")
            self.write_layout(ERROR_OBJECT, v, (), prefix=f"{field}.")
        else:
            assert type_ == "payload", type_
            check(isinstance(v, list) and all(isinstance(x, dict) for x in v), "frame.field-type",
                  f"{field}: expected an array of typed values, got {describe(v)}")
            self.values += v

    def write_layout(self, fields_layout, given, features, prefix=""):
        """Checks the whole object first (frame.fields), then writes each field (frame.field-type)."""
        wanted = [(name, type_) for name, type_, when in fields_layout if when_given(when, given, features)]
        names = {name for name, _ in wanted}
        missing = [prefix + name for name, _ in wanted if name not in given]
        check(not missing, "frame.fields", f"missing {', '.join(missing)}")
        extra = sorted(prefix + name for name in given if name not in names)
        known = {name for name, _, _ in fields_layout}
        check(not extra, "frame.fields", "not in this layout: " + ", ".join(
            f"{name} ({'ruled out by the flags, error or features' if name[len(prefix):] in known else 'unknown'})"
            for name in extra))
        for name, type_ in wanted:
            self.write(prefix + name, type_, given[name])


def when_given(when, given, features):
    """A layout condition over given fields: the fields it reads come earlier in the layout; if one is missing
    the condition cannot hold (the missing field is reported); flags of the wrong type is frame.field-type."""
    try:
        return when(given, features)
    except KeyError:
        return False


def describe(v):
    if isinstance(v, dict) and "type" in v:
        return f"a typed {v['type']}"
    return type(v).__name__


def encode(kind, given, features=()):
    fields_layout = layout(kind)
    check(isinstance(given, dict), "frame.fields", "fields is not an object")
    unknown = sorted(set(features) - FEATURES)
    check(not unknown, "frame.fields", f"unknown negotiated features {unknown}: the layout cannot be known")
    w = Writer()
    w.write_layout(fields_layout, given, frozenset(features))
    body = codec.encode(w.values)
    check(len(body) < 2**31, "unrepresentable", f"{len(body)} bytes do not fit the 4-byte signed length")
    return (MAGIC if kind in HANDSHAKES else b"") + len(body).to_bytes(LENGTH_BYTES, "big") + body
