"""Ignite extension payloads, per layout id of schema/registry.json (which is read here and decides which
code carries which layout in which era, and each layout's payload length). All fields are big-endian
unless the layout says otherwise."""
import json
import os
import struct
import uuid

import msgpack

REGISTRY_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "schema", "registry.json")
with open(REGISTRY_PATH, encoding="utf-8") as f:
    REGISTRY = json.load(f)

ERAS = [e["id"] for e in REGISTRY["eras"]]
LAYOUTS = {lay["id"]: lay for lay in REGISTRY["layouts"]}
# era -> {code: layout id}, for decoding; era -> {value type: (code, layout id)}, for encoding.
CODES = {era: {t["code"]: t["layouts"][era] for t in REGISTRY["ext_types"] if era in t["layouts"]} for era in ERAS}
TYPES = {era: {LAYOUTS[lay]["value_type"]: (code, lay) for code, lay in codes.items()} for era, codes in CODES.items()}

INT32 = (-2**31, 2**31 - 1)
INT64 = (-2**63, 2**63 - 1)
INSTANT_SECONDS = (-31557014167219200, 31556889864403199)  # java.time.Instant.MIN / MAX epoch seconds
YEARS = (-999999999, 999999999)                             # java.time.LocalDate year range


class WireError(Exception):
    """A rejection: WireError(error class from registry.json, message), kept as the exception's args. No
    __init__ of its own: half the corpus's ops are rejections, and a Python-level constructor costs more than
    the raise."""
    @property
    def cls(self):
        return self.args[0]

    def __str__(self):
        return self.args[1]


def check(ok, cls, message):
    if not ok:
        raise WireError(cls, message)


def in_range(v, bounds):
    return bounds[0] <= v <= bounds[1]


# ---- field validation shared by decode and encode (both answer invalid.ext-value) ----
def days_in_month(year, month):
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    return [31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]


def check_date(y, m, d):
    # short-circuit: days_in_month is only asked about a real month
    check(in_range(y, YEARS) and 1 <= m <= 12 and 1 <= d <= days_in_month(y, m),
          "invalid.ext-value", f"no such date {y}-{m}-{d}")


def check_time(h, mi, s, n):
    check(0 <= h <= 23 and 0 <= mi <= 59 and 0 <= s <= 59 and 0 <= n <= 999999999,
          "invalid.ext-value", f"no such time {h}:{mi}:{s}.{n}")


# ---- numbers ----
def number_bytes(n):
    """Minimal two's complement, as Java's BigInteger.toByteArray (bitLength excludes the sign bit)."""
    return n.to_bytes((n if n >= 0 else ~n).bit_length() // 8 + 1, "big", signed=True)


def number_value(b):
    return int.from_bytes(b, "big", signed=True)


def uuid_text(msb, lsb):
    return str(uuid.UUID(bytes=msb + lsb))


def uuid_le_halves(text):
    raw = uuid.UUID(text).bytes
    return raw[7::-1] + raw[:7:-1]


# ---- decoders: payload -> fields of the typed value (length already checked against the registry) ----
def decode_varint_scale(p):
    # The scale is a complete MessagePack int at the payload's start: let the library read it.
    check(p[0] <= 0x7f or p[0] >= 0xe0 or 0xcc <= p[0] <= 0xd3, "invalid.ext-value", "scale is not a MessagePack int")
    u = msgpack.Unpacker(max_buffer_size=len(p))
    u.feed(p)
    try:
        scale = u.unpack()
    except msgpack.OutOfData:
        raise WireError("invalid.ext-value", "scale int truncated") from None
    check(in_range(scale, INT32), "invalid.ext-value", f"scale {scale} outside int32")
    check(u.tell() < len(p), "invalid.ext-value", "no unscaled value after the scale")
    return {"unscaled": str(number_value(p[u.tell():])), "scale": scale}


def decode_date(p):
    y, m, d = struct.unpack(">iBB", p[:6])
    check_date(y, m, d)
    return {"year": y, "month": m, "day": d}


def decode_time(p):
    h, mi, s, n = struct.unpack(">BBBi", p[:7])
    check_time(h, mi, s, n)
    return {"hour": h, "minute": mi, "second": s, "nano": n}


def decode_timestamp(p):
    s, n = struct.unpack(">qi", p)
    check(in_range(s, INSTANT_SECONDS) and 0 <= n <= 999999999, "invalid.ext-value", f"no such instant {s}s {n}ns")
    return {"seconds": str(s), "nano": n}


DECODERS = {
    "number": lambda p: {"value": str(number_value(p))},
    "decimal-int32-scale": lambda p: {"unscaled": str(number_value(p[4:])), "scale": struct.unpack(">i", p[:4])[0]},
    "decimal-varint-scale": decode_varint_scale,
    "uuid-be": lambda p: {"value": uuid_text(p[:8], p[8:])},
    "uuid-le": lambda p: {"value": uuid_text(p[7::-1], p[:7:-1])},
    "date": decode_date,
    "time": decode_time,
    "datetime": lambda p: {**decode_date(p[:6]), **decode_time(p[6:])},
    "timestamp": decode_timestamp,
    "bitmask": lambda p: {"bits": [8 * k + j for k, byte in enumerate(p) for j in range(8) if byte >> j & 1]},
    "ignite-uuid": lambda p: {"global": uuid_text(p[:8], p[8:16]), "local": str(struct.unpack(">q", p[16:])[0])},
    "no-value": lambda p: {},
}


def decode(era, code, payload):
    """The typed value for an ext the era assigns (caller checked), or WireError."""
    lay_id = CODES[era][code]
    lay = LAYOUTS[lay_id]
    # tests, not check(): the message is formatted only on failure (this runs once per Ignite value)
    if lay["payload"] == "fixed":
        if len(payload) != lay["length"]:
            raise WireError("invalid.ext-length", f"{lay_id} needs {lay['length']} bytes, got {len(payload)}")
    elif len(payload) < lay["min_length"]:
        raise WireError("invalid.ext-length", f"{lay_id} needs >= {lay['min_length']} bytes, got {len(payload)}")
    if lay_id not in DECODERS:
        raise NotImplementedError(f"layout {lay_id} not implemented")
    return {"type": lay["value_type"], "era": era, **DECODERS[lay_id](payload)}


# ---- encoders: typed value -> payload ----
def encode_decimal(v, varint):
    scale = v["scale"]
    check(in_range(scale, INT32), "unrepresentable", f"scale {scale} outside int32")
    head = msgpack.Packer().pack(scale) if varint else struct.pack(">i", scale)
    return head + number_bytes(int(v["unscaled"]))


def encode_date(v):
    check_date(v["year"], v["month"], v["day"])
    return struct.pack(">iBB", v["year"], v["month"], v["day"])


def encode_time(v):
    check_time(v["hour"], v["minute"], v["second"], v["nano"])
    return struct.pack(">BBBi", v["hour"], v["minute"], v["second"], v["nano"])


def encode_timestamp(v):
    s, n = int(v["seconds"]), v["nano"]
    check(in_range(s, INSTANT_SECONDS) and 0 <= n <= 999999999, "invalid.ext-value", f"no such instant {s}s {n}ns")
    return struct.pack(">qi", s, n)


def encode_bitmask(v):
    out = bytearray((max(v["bits"]) // 8 + 1) if v["bits"] else 0)  # highest bit sets the last byte: already trimmed
    check(len(out) < 2**32, "unrepresentable", "bitmask longer than ext32 allows")
    for i in v["bits"]:
        out[i // 8] |= 1 << (i % 8)
    return bytes(out)


def encode_ignite_uuid(v):
    local = int(v["local"])
    check(in_range(local, INT64), "unrepresentable", f"local id {local} outside int64")
    return uuid.UUID(v["global"]).bytes + struct.pack(">q", local)


ENCODERS = {
    "number": lambda v: number_bytes(int(v["value"])),
    "decimal-int32-scale": lambda v: encode_decimal(v, varint=False),
    "decimal-varint-scale": lambda v: encode_decimal(v, varint=True),
    "uuid-be": lambda v: uuid.UUID(v["value"]).bytes,
    "uuid-le": lambda v: uuid_le_halves(v["value"]),
    "date": encode_date,
    "time": encode_time,
    "datetime": lambda v: encode_date(v) + encode_time(v),
    "timestamp": encode_timestamp,
    "bitmask": encode_bitmask,
    "ignite-uuid": encode_ignite_uuid,
    "no-value": lambda v: b"\x00",
}


def encode(v):
    """(code, payload) for an Ignite typed value, in the era the value names."""
    era = v["era"]
    check(v["type"] in TYPES.get(era, {}), "unrepresentable", f"era {era} has no ext type for {v['type']}")
    code, lay_id = TYPES[era][v["type"]]
    if lay_id not in ENCODERS:
        raise NotImplementedError(f"layout {lay_id} not implemented")
    return code, ENCODERS[lay_id](v)
