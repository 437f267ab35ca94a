"""Ignite 3 client frames (spec.md 11) <-> named fields, on the runner's value codec.

A frame is [IGNI magic, handshake kinds only] + 4-byte big-endian length + that many bytes of MessagePack: a
sequence of values laid out by the message kind (the registry's frame_layouts). Decoding reads the whole sequence with codec.decode and
walks the layout over the value list (Cursor); encoding checks the fields against the layout, lays out typed values
in wire order (Writer) and writes them with codec.encode. No count or declared length is ever used to allocate."""
import codec
from ignite_ext import INT32, INT64, REGISTRY, WireError, check, in_range

ERA = "3.0"
MAGIC = b"IGNI"                      # 49 47 4e 49, before the length of both handshake messages (spec FR-MAGIC)
LENGTH_BYTES = 4
# The negotiable features (registry frames.features[].name): an encoder refuses others
FEATURES = {f["name"] for f in REGISTRY["frames"]["features"]}
# FR-INT-RANGE: an int field is what Java reads with unpackInt, a long field with unpackLong
RANGES = {"int": INT32, "long": INT64}


# ---------------------------------------------------------------- layouts (registry frame_layouts)
# Each message kind's fields in wire order, as the registry gives them: {name, type, when?}. A type ending in '?'
# may be nil. A condition is a test over the fields laid out so far (typed values) and the negotiated features;
# one evaluator (`holds`) serves both directions, so a field is added to a message by editing the registry alone.

def flags_of(f):
    v = f["flags"]     # KeyError when missing: encode reports the missing field
    check(isinstance(v, dict) and v.get("type") == "int", "frame.field-type", f"flags: expected int, got {describe(v)}")
    return int(v["value"])


def is_nil(v):
    return isinstance(v, dict) and v.get("type") == "nil"


def int_equals(v, n):
    return isinstance(v, dict) and v.get("type") == "int" and str(v.get("value")) == str(n)


def holds(when, f, features):
    """Whether a field with condition `when` (registry frame_condition) is present."""
    if when is None:
        return True
    if "flags" in when:
        return flags_of(f) & when["flags"]["mask"] == when["flags"]["equals"]
    if "nil" in when:
        return is_nil(f[when["nil"]])
    if "feature" in when:
        return when["feature"] in features
    if "not_nil_or_zero" in when:
        v = f[when["not_nil_or_zero"]]
        return not is_nil(v) and not int_equals(v, 0)
    form = when["tx_form"]
    if form["feature"] not in features:
        return False
    v = f["tx"]
    check(isinstance(v, dict) and v.get("type") in ("int", "nil"), "frame.field-type",
          f"tx: expected int or nil, got {describe(v)}")
    return int_equals(v, form["tx"])


LAYOUTS = {m["kind"]: m for m in REGISTRY["frame_layouts"]["messages"]}
ERROR_OBJECT = REGISTRY["frame_layouts"]["error_object"]
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
    for field in fields_layout:
        if holds(field.get("when"), out, features):
            out[field["name"]] = read(cur, prefix + field["name"], field["type"])
    return out


def decode(kind, data, features=()):
    message = layout(kind)
    pos = 0
    if message["magic"]:
        check(len(data) >= len(MAGIC), "malformed.truncated", f"{len(data)} bytes: the magic needs 4")
        check(data[:4] == MAGIC, "frame.magic", f"magic {data[:4].hex()}, not {MAGIC.hex()}")
        pos = len(MAGIC)
    check(len(data) >= pos + LENGTH_BYTES, "malformed.truncated", "input ends inside the 4-byte length")
    length = int.from_bytes(data[pos:pos + LENGTH_BYTES], "big", signed=True)
    check(length >= 0, "frame.length", f"negative length {length}")
    pos += LENGTH_BYTES
    check(len(data) - pos >= length, "malformed.truncated", f"length {length}, {len(data) - pos} bytes follow")
    cur = Cursor(codec.decode(data[pos:pos + length], ERA))
    out = read_layout(cur, message["fields"], frozenset(features))
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
        wanted = [(f["name"], f["type"]) for f in fields_layout if when_given(f.get("when"), given, features)]
        names = {name for name, _ in wanted}
        missing = [prefix + name for name, _ in wanted if name not in given]
        check(not missing, "frame.fields", f"missing {', '.join(missing)}")
        extra = sorted(prefix + name for name in given if name not in names)
        known = {f["name"] for f in fields_layout}
        check(not extra, "frame.fields", "not in this layout: " + ", ".join(
            f"{name} ({'ruled out by the flags, error or features' if name[len(prefix):] in known else 'unknown'})"
            for name in extra))
        for name, type_ in wanted:
            self.write(prefix + name, type_, given[name])


def when_given(when, given, features):
    """A layout condition over given fields: the fields it reads come earlier in the layout; if one is missing
    the condition cannot hold (the missing field is reported); flags of the wrong type is frame.field-type."""
    try:
        return holds(when, given, features)
    except KeyError:
        return False


def describe(v):
    if isinstance(v, dict) and "type" in v:
        return f"a typed {v['type']}"
    return type(v).__name__


def encode(kind, given, features=()):
    message = layout(kind)
    check(isinstance(given, dict), "frame.fields", "fields is not an object")
    unknown = sorted(set(features) - FEATURES)
    check(not unknown, "frame.fields", f"unknown negotiated features {unknown}: the layout cannot be known")
    w = Writer()
    w.write_layout(message["fields"], given, frozenset(features))
    body = codec.encode(w.values)
    check(len(body) < 2**31, "unrepresentable", f"{len(body)} bytes do not fit the 4-byte signed length")
    return (MAGIC if message["magic"] else b"") + len(body).to_bytes(LENGTH_BYTES, "big") + body
