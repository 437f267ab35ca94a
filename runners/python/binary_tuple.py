"""Binary Tuple (IEP-92) codec: spec.md 6.2. Elements are ColumnType-typed values ({"type": "INT32", ...}).

Structure (the Java, C++ and JS runners mirror it):
  read_tuple / write_tuple      header, offset table, value area (era 3.0; beta1 adds the null map)
  decode_element / encode_element   one element per ColumnType
  decode / encode               the formats: binary-tuple, object, object-array, batched-arguments, table-row, collection,
                                compute-arg; the MessagePack
                                around a tuple (c0, bin, int N, the no-value BITMASK) goes through codec.py
Everything in a tuple is little-endian except the DECIMAL unscaled value (big-endian two's complement)."""
import struct
import uuid

import codec
from ignite_ext import WireError, check

# ColumnType ids on the 3.0 wire (14 and 19 are not value types there).
TYPE_IDS = {"NULL": 0, "BOOLEAN": 1, "INT8": 2, "INT16": 3, "INT32": 4, "INT64": 5, "FLOAT": 6, "DOUBLE": 7,
            "DECIMAL": 8, "DATE": 9, "TIME": 10, "DATETIME": 11, "TIMESTAMP": 12, "UUID": 13, "STRING": 15,
            "BYTE_ARRAY": 16, "PERIOD": 17, "DURATION": 18}
TYPE_NAMES = {i: name for name, i in TYPE_IDS.items() if i}
INT_WIDTHS = {"INT8": (1,), "INT16": (1, 2), "INT32": (1, 2, 4), "INT64": (1, 2, 4, 8)}
TIME_FORMS = {4: (10, 1_000_000), 5: (20, 1000), 6: (30, 1)}       # length -> (fraction bits, nanos per unit)
INSTANT_SECONDS = (-31557014167219200, 31556889864403199)
EMPTY = 0x80                                                         # varlen marker byte


def fits(n, size):
    return -(1 << (8 * size - 1)) <= n < (1 << (8 * size - 1))


def days_in_month(y, m):
    leap = y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)
    return [31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]


def signed(b):
    return int.from_bytes(b, "little", signed=True)


# ---------------------------------------------------------------- the tuple

OFFSET_FORMATS = {1: "B", 2: "H", 4: "I"}   # offset entry size -> struct format


def read_tuple(data, n, era):
    """The n element byte strings (b"" for a zero-length element) and, for beta1, the set of NULL indices."""
    # Tests, not check(): a message is formatted only on failure (a tuple is read for one op in six).
    if not data:
        raise WireError("malformed.truncated", "no header byte")
    flags = data[0]
    reserved = 0xf8 if era == "beta1" else 0xfc   # beta1: bit 2 is the null-map flag
    if flags & reserved:
        raise WireError("malformed.tuple-header", f"reserved header bits {flags & reserved:02x}")
    if flags & 3 == 3:
        raise WireError("malformed.tuple-header", "8-byte offset entries do not exist")
    size = 1 << (flags & 3)
    nullmap = (n + 7) // 8 if flags & 4 else 0
    base = 1 + nullmap + n * size
    if base > len(data):
        raise WireError("malformed.truncated", f"header and offset table need {base} bytes, {len(data)} given")
    nulls = {i for i in range(n) if data[1 + i // 8] >> (i % 8) & 1} if nullmap else set()
    parts, start = [], 0
    # The offset table in one call, not a slice and an int per entry.
    for i, end in enumerate(struct.unpack_from(f"<{n}{OFFSET_FORMATS[size]}", data, 1 + nullmap)):
        if end < start:
            raise WireError("malformed.tuple-offsets", f"element {i} ends at {end}, before its start {start}")
        if base + end > len(data):
            raise WireError("malformed.tuple-offsets", f"element {i} ends at {base + end}, past the input ({len(data)})")
        parts.append(data[base + start:base + end])
        start = end
    # Strict: the input is exactly one tuple (spec BT-TRAILING leaves this to the implementation).
    if base + start != len(data):
        raise WireError("malformed.tuple-offsets", f"{len(data) - base - start} bytes after the last element")
    return parts, nulls


def write_tuple(parts, nulls=None):
    """Header, (beta1: null map,) end offsets in the smallest entry size for the value area, values."""
    area = b"".join(parts)
    size = 1 if len(area) <= 0xff else 2 if len(area) <= 0xffff else 4
    head = bytes([{1: 0, 2: 1, 4: 2}[size] | (4 if nulls else 0)])
    if nulls:
        mask = bytearray((len(parts) + 7) // 8)
        for i in nulls:
            mask[i // 8] |= 1 << (i % 8)
        head += bytes(mask)
    ends, end = bytearray(), 0
    for p in parts:
        end += len(p)
        ends += end.to_bytes(size, "little")
    return head + bytes(ends) + area


# ---------------------------------------------------------------- elements: decode

def need(t, b, ok):
    if not ok:   # the message is formatted only on failure: this runs once per element
        raise WireError("invalid.tuple-length", f"{t} element of {len(b)} bytes")


def decode_time(b):
    bits, unit = TIME_FORMS[len(b)]
    x = int.from_bytes(b, "little")
    frac, x = x & ((1 << bits) - 1), x >> bits
    s, mi, h, rest = x & 63, x >> 6 & 63, x >> 12 & 31, x >> 17
    # Strict on the unused top bits (spec BT-TIME-PADDING leaves them to the implementation; Java ignores them).
    check(rest == 0, "invalid.tuple-value", "unused TIME bits set")
    check(h <= 23 and mi <= 59 and s <= 59 and frac * unit <= 999_999_999, "invalid.tuple-value",
          f"no time {h}:{mi}:{s} + {frac} x {unit} ns")
    return {"hour": h, "minute": mi, "second": s, "nano": frac * unit}


def decode_date(b):
    d = int.from_bytes(b, "little", signed=True)   # the 24-bit value, year sign-extended from bit 23
    y, m, day = d >> 9, d >> 5 & 15, d & 31
    check(1 <= m <= 12 and 1 <= day <= days_in_month(y, m), "invalid.tuple-value", f"no date {y}-{m}-{day}")
    return {"year": y, "month": m, "day": day}


def seconds_nanos(t, b):
    need(t, b, len(b) in (8, 12))
    # any int32 nanos, normalised as Java's Instant.ofEpochSecond / Duration.ofSeconds do (spec BT-TIMESTAMP, BT-DURATION)
    seconds, nano = divmod(signed(b[:8]) * 10**9 + (signed(b[8:]) if len(b) == 12 else 0), 10**9)
    if t == "TIMESTAMP":
        check(INSTANT_SECONDS[0] <= seconds <= INSTANT_SECONDS[1], "invalid.tuple-value", f"seconds {seconds} outside Instant")
    check(fits(seconds, 8), "invalid.tuple-value", f"seconds {seconds} outside int64")
    return {"seconds": str(seconds), "nano": nano}


def decode_varlen(b):
    return b[1:] if b[:1] == bytes([EMPTY]) else b   # strip exactly one leading 80


def decode_element(t, b, era="3.0"):
    """The typed value of a non-empty element of column type t."""
    if t == "BOOLEAN":
        need(t, b, len(b) == 1)
        check(b[0] in (0, 1), "invalid.tuple-value", f"BOOLEAN byte {b[0]:02x}")   # BT-BOOLEAN-OTHER: strict
        return {"value": b[0] == 1}
    if t in INT_WIDTHS:
        need(t, b, len(b) in INT_WIDTHS[t])
        return {"value": str(signed(b))}
    if t == "FLOAT":
        need(t, b, len(b) == 4)
        return {"bits": b[::-1].hex()}
    if t == "DOUBLE":
        need(t, b, len(b) in (4, 8))
        if len(b) == 4:   # widen a float32 through Python floats (exact for every non-NaN value)
            return {"bits": struct.pack(">d", struct.unpack("<f", b)[0]).hex()}
        return {"bits": b[::-1].hex()}
    if t == "DECIMAL":
        need(t, b, len(b) >= 3)
        return {"unscaled": str(int.from_bytes(b[2:], "big", signed=True)), "scale": signed(b[:2])}
    if t == "DATE":
        need(t, b, len(b) == 3)
        return decode_date(b)
    if t == "TIME":
        need(t, b, len(b) in TIME_FORMS)
        return decode_time(b)
    if t == "DATETIME":
        need(t, b, len(b) - 3 in TIME_FORMS)
        return {**decode_date(b[:3]), **decode_time(b[3:])}
    if t in ("TIMESTAMP", "DURATION"):
        return seconds_nanos(t, b)
    if t == "UUID":
        need(t, b, len(b) == 16)
        return {"value": str(uuid.UUID(bytes=b[7::-1] + b[:7:-1]))}
    if t == "STRING":
        raw = b if era == "beta1" else decode_varlen(b)
        try:
            return {"value": raw.decode("utf-8")}
        except UnicodeDecodeError as e:
            raise WireError("invalid.utf8", str(e)) from None
    if t == "BYTE_ARRAY":
        return {"hex": (b if era == "beta1" else decode_varlen(b)).hex()}
    if t == "NUMBER" and era == "beta1":   # BigInteger, big-endian two's complement (spec 6.2.8)
        return {"value": str(int.from_bytes(b, "big", signed=True))}
    if t == "PERIOD":
        need(t, b, len(b) in (3, 6, 12))
        k = len(b) // 3
        return dict(zip(("years", "months", "days"), (signed(b[i:i + k]) for i in range(0, len(b), k))))
    raise WireError("invalid.tuple-type", f"no column type {t!r}")


BETA1_DEFAULTS = {"BOOLEAN": {"value": False}, "FLOAT": {"bits": "00000000"}, "DOUBLE": {"bits": "0000000000000000"},
                  "STRING": {"value": ""}, "BYTE_ARRAY": {"hex": ""}, **{t: {"value": "0"} for t in INT_WIDTHS},
                  # zero length by value (nil UUID) or because java.time returns its constants for zero (spec 6.2.8)
                  "UUID": {"value": "00000000-0000-0000-0000-000000000000"},
                  "TIME": {"hour": 0, "minute": 0, "second": 0, "nano": 0}, "TIMESTAMP": {"seconds": "0", "nano": 0},
                  "DURATION": {"seconds": "0", "nano": 0}, "PERIOD": {"years": 0, "months": 0, "days": 0},
                  "NUMBER": {"value": "0"},   # zero by value (appendNumberNotNull)
                  # the reader's DEFAULT_DATE and DEFAULT_DATE_TIME (spec BT-BETA1)
                  "DATE": {"year": 0, "month": 1, "day": 1},
                  "DATETIME": {"year": 0, "month": 1, "day": 1, "hour": 0, "minute": 0, "second": 0, "nano": 0}}


def decode_column(t, b, era, is_null=False):
    if era == "beta1":
        if is_null:
            return {"type": "NULL"}
        if t == "DECIMAL":   # the unscaled value only; its scale is the column's, not in the vector (spec BT-BETA1)
            raise NotImplementedError("beta1 DECIMAL is not modelled (spec 6.2.8)")
        if not b:   # a zero-length element of a non-NULL column: the type's default
            check(t in BETA1_DEFAULTS, "invalid.tuple-length", f"no beta1 default for {t}")
            return {"type": t, **BETA1_DEFAULTS[t]}
    elif not b:
        return {"type": "NULL"}
    return {"type": t, **decode_element(t, b, era)}


# ---------------------------------------------------------------- elements: encode

def encode_int(t, n):
    size = next((s for s in INT_WIDTHS[t] if fits(n, s)), None)
    if size is None:   # not check(): the message is formatted only on failure
        raise WireError("unrepresentable", f"{n} does not fit {t}")
    return n.to_bytes(size, "little", signed=True)


def encode_double(bits):
    raw = bytes.fromhex(bits)
    x = struct.unpack(">d", raw)[0]
    try:
        narrow = struct.pack("<f", x)   # x == (double)(float)x  <=>  the float32 rounding reads back equal
    except OverflowError:
        return raw[::-1]
    return narrow if struct.unpack("<f", narrow)[0] == x else raw[::-1]


def encode_date(v):
    y, m, d = v["year"], v["month"], v["day"]
    check(1 <= m <= 12 and 1 <= d <= days_in_month(y, m), "invalid.tuple-value", f"no date {y}-{m}-{d}")
    check(-16384 <= y <= 16383, "unrepresentable", f"year {y} does not fit 15 bits")
    return ((y << 9 | m << 5 | d) & 0xffffff).to_bytes(3, "little")


def encode_time(v):
    h, mi, s, n = v["hour"], v["minute"], v["second"], v["nano"]
    check(0 <= h <= 23 and 0 <= mi <= 59 and 0 <= s <= 59 and 0 <= n <= 999_999_999, "invalid.tuple-value",
          f"no time {h}:{mi}:{s}.{n}")
    size = 6 if n % 1000 else 5 if n % 1_000_000 else 4
    bits, unit = TIME_FORMS[size]
    return ((h << 12 | mi << 6 | s) << bits | n // unit).to_bytes(size, "little")


def encode_seconds_nanos(v):
    seconds, nano = int(v["seconds"]), v["nano"]
    check(0 <= nano <= 999_999_999, "invalid.tuple-value", f"nano {nano}")
    if v["type"] == "TIMESTAMP":
        check(INSTANT_SECONDS[0] <= seconds <= INSTANT_SECONDS[1], "invalid.tuple-value", f"seconds {seconds}")
    check(fits(seconds, 8), "unrepresentable", f"seconds {seconds} outside int64")
    return seconds.to_bytes(8, "little", signed=True) + (nano.to_bytes(4, "little") if nano else b"")


def twos_be(n):
    """Minimal big-endian two's complement (Java BigInteger.toByteArray)."""
    return n.to_bytes((n if n >= 0 else ~n).bit_length() // 8 + 1, "big", signed=True)


def encode_decimal(unscaled, scale):
    check(fits(scale, 2), "unrepresentable", f"scale {scale} outside int16")
    return scale.to_bytes(2, "little", signed=True) + twos_be(unscaled)


def encode_varlen(data):
    return bytes([EMPTY]) + data if not data or data[0] == EMPTY else data


def encode_element(v, era="3.0"):
    t = v["type"]
    if t in ("NULL", "NO_VALUE"):
        return b""
    if era == "beta1":
        return encode_element_beta1(v)
    if t == "BOOLEAN":
        return b"\x01" if v["value"] else b"\x00"
    if t in INT_WIDTHS:
        return encode_int(t, int(v["value"]))
    if t == "FLOAT":
        return bytes.fromhex(v["bits"])[::-1]
    if t == "DOUBLE":
        return encode_double(v["bits"])
    if t == "DECIMAL":
        return encode_decimal(int(v["unscaled"]), v["scale"])
    if t == "DATE":
        return encode_date(v)
    if t == "TIME":
        return encode_time(v)
    if t == "DATETIME":
        return encode_date(v) + encode_time(v)
    if t in ("TIMESTAMP", "DURATION"):
        return encode_seconds_nanos(v)
    if t == "UUID":
        raw = uuid.UUID(v["value"]).bytes
        return raw[7::-1] + raw[:7:-1]
    if t == "STRING":
        return encode_varlen(v["value"].encode("utf-8"))
    if t == "BYTE_ARRAY":
        return encode_varlen(bytes.fromhex(v["hex"]))
    if t == "PERIOD":
        parts = (v["years"], v["months"], v["days"])
        size = next((s for s in (1, 2, 4) if all(fits(p, s) for p in parts)), None)
        check(size is not None, "unrepresentable", f"period {parts} outside int32")
        return b"".join(p.to_bytes(size, "little", signed=True) for p in parts)
    raise WireError("invalid.tuple-type", f"no element type {t!r}")


def encode_element_beta1(v):
    """BT-1: defaults (0, 0.0, false, empty) are zero-length; no 80 marker."""
    t = v["type"]
    if t == "STRING":
        return v["value"].encode("utf-8")
    if t == "BYTE_ARRAY":
        return bytes.fromhex(v["hex"])
    if t not in BETA1_DEFAULTS:
        raise NotImplementedError(f"beta1 {t} is not modelled (spec 6.2.8)")
    if {k: v[k] for k in BETA1_DEFAULTS[t]} == BETA1_DEFAULTS[t] or (t == "BOOLEAN" and not v["value"]):
        return b""
    if t == "NUMBER":   # a beta1-only column type: BigInteger.toByteArray()
        return twos_be(int(v["value"]))
    return encode_element(v)


# ---------------------------------------------------------------- triples

def stripped(unscaled, scale):
    """Java BigDecimal.stripTrailingZeros(); zero becomes (0, 0)."""
    if unscaled == 0:
        return 0, 0
    while unscaled % 10 == 0:
        unscaled, scale = unscaled // 10, scale - 1
    return unscaled, scale


def triple(v):
    t = v["type"]
    if t == "NULL":
        return [b"", b"", b""]
    check(t in TYPE_IDS, "invalid.tuple-type", f"no object type {t!r}")
    scale, value = 0, None
    if t == "DECIMAL":
        unscaled, scale = int(v["unscaled"]), v["scale"]
        check(fits(scale, 4), "unrepresentable", f"scale {scale} outside int32")
        su, ss = stripped(unscaled, scale)   # the java producer profile (canonical): shrinkDecimal
        value = encode_decimal(*((su, ss) if fits(ss, 2) else (unscaled, scale)))
    return [encode_int("INT32", TYPE_IDS[t]), encode_int("INT32", scale), value if value is not None else encode_element(v)]


MAX_RESCALE_DIGITS = 100_000   # the same bound the Java, C++ and JS runners use


def read_triple(parts):
    type_b, scale_b, value_b = parts
    if not type_b:
        return {"type": "NULL"}
    type_id = int(decode_element("INT32", type_b)["value"])
    t = TYPE_NAMES.get(type_id)
    if t is None:   # tests, not check(): a message is formatted only on failure
        raise WireError("invalid.tuple-type", f"type id {type_id} is not a 3.0 value type")
    if not value_b:
        raise WireError("invalid.tuple-length", f"{t} object without a value")
    v = {"type": t, **decode_element(t, value_b)}
    if t == "DECIMAL":
        # Java reads the scale with intValue, which refuses a zero-length element (spec BT-OBJECT-DECIMAL-SCALE)
        check(len(scale_b) > 0, "invalid.tuple-length", "DECIMAL object with a NULL scale element")
        want = int(decode_element("INT32", scale_b)["value"])
        unscaled, scale = int(v["unscaled"]), v["scale"]
        # The scale element may ask for 10^(2^31): decide what can be decided without computing it.
        if unscaled == 0:
            pass
        elif scale <= want:
            if want - scale > MAX_RESCALE_DIGITS:
                raise NotImplementedError(f"rescaling to scale {want} needs over {MAX_RESCALE_DIGITS} digits")
            unscaled *= 10 ** (want - scale)
        elif scale - want > len(str(abs(unscaled))):
            check(False, "invalid.tuple-value", f"({unscaled}, {scale}) does not rescale exactly to scale {want}")
        else:
            q, r = divmod(unscaled, 10 ** (scale - want))
            check(r == 0, "invalid.tuple-value", f"({unscaled}, {scale}) does not rescale exactly to scale {want}")
            unscaled = q
        v = {"type": t, "unscaled": str(unscaled), "scale": want}
    return v


# ---------------------------------------------------------------- formats

def msgpack_values(data):
    return codec.decode(data, "3.0")


def bin_of(value, what):
    if value.get("type") != "bin":   # not check(): the message is formatted only on failure
        raise WireError("invalid.tuple-type", f"{what}: expected a bin, got {value.get('type')}")
    return bytes.fromhex(value["hex"])


def int_element(b, what):
    """A type id, scale or count: an INT32 element that may not be NULL (Java reads it with intValue)."""
    check(len(b) > 0, "invalid.tuple-length", f"{what} element is NULL")
    return int(decode_element("INT32", b)["value"])


def one_bin_after(outer, what):
    """The bin that must follow the first MessagePack value of a collection or compute argument, alone."""
    check(len(outer) == 2, "invalid.tuple-type", f"{what}: expected one bin after the first value, got {len(outer) - 1} values")
    return bin_of(outer[1], what)


def read_collection(outer, era):
    check(outer[0]["type"] == "int", "invalid.tuple-type", "a collection starts with its element count")
    n = int(outer[0]["value"])
    check(n >= 2, "invalid.tuple-type", f"collection element count {n} is below 2")
    check(len(outer) > 1, "malformed.truncated", "collection: the input ends where the bin belongs")
    parts, _ = read_tuple(one_bin_after(outer, "collection"), n, era)
    type_id, count = int_element(parts[0], "collection type id"), int_element(parts[1], "collection count")
    t = TYPE_NAMES.get(type_id)
    check(t is not None, "invalid.tuple-type", f"collection type id {type_id} is not a 3.0 value type")
    check(count == n - 2, "invalid.tuple-type", f"collection count {count} with {n} elements (count + 2 expected)")
    check(all(parts[2:]), "invalid.tuple-length", "a NULL collection item")
    return [{"type": t, **decode_element(t, b, era)} for b in parts[2:]]


COMPUTE_NATIVE, COMPUTE_MARSHALLED = 0, 2   # ComputeJobDataType ids the corpus models


def read_compute_arg(outer, era):
    check(outer[0]["type"] == "int", "invalid.tuple-type", "a compute argument starts with its kind")
    kind = int(outer[0]["value"])
    check(kind in (COMPUTE_NATIVE, COMPUTE_MARSHALLED), "invalid.tuple-type", f"compute argument kind {kind}")
    check(len(outer) > 1, "malformed.truncated", "compute argument: the input ends where the bin belongs")
    data = one_bin_after(outer, "compute argument")
    if kind == COMPUTE_MARSHALLED:
        return [{"type": "MARSHALLED", "hex": data.hex()}]
    return [read_triple(read_tuple(data, 3, era)[0])]


def collection_parts(values):
    types = {v["type"] for v in values}
    check("NULL" not in types, "unrepresentable", "a NULL collection item")
    check(len(types) == 1, "unrepresentable", f"collection items of several types {sorted(types)}")
    return [encode_int("INT32", TYPE_IDS[values[0]["type"]]), encode_int("INT32", len(values))] + [encode_element(v) for v in values]


def read_batch(outer, era):
    """nil, or row length N, row count, a bool (ignored), then one bin per row of 3N elements (spec BT-BATCH)."""
    if outer and outer[0]["type"] == "nil":
        check(len(outer) == 1, "invalid.tuple-type", "batched arguments: nil followed by more values")
        return []
    # input that ends where a header value or a row belongs is truncated (spec BT-BATCH-FORM): Java meets the end
    for i, (want, what) in enumerate((("int", "row length"), ("int", "row count"), ("bool", "third value"))):
        check(len(outer) > i, "malformed.truncated", f"batched arguments: the input ends where the {what} belongs")
        check(outer[i]["type"] == want, "invalid.tuple-type", "batched arguments are a row length, a count and a bool, then the rows")
    n, rows = int(outer[0]["value"]), int(outer[1]["value"])
    check(n >= 0 and rows >= 0, "invalid.tuple-type", f"batched arguments: row length {n}, count {rows}")
    check(n > 0 or rows == 0, "invalid.tuple-type", "batched arguments: rows of no arguments")
    check(len(outer) >= 3 + rows, "malformed.truncated", f"batched arguments: count {rows}, the input ends after {len(outer) - 3} rows")
    check(len(outer) == 3 + rows, "invalid.tuple-type", f"batched arguments: count {rows}, {len(outer) - 3} values follow")
    out = []
    for row in outer[3:]:
        parts, _ = read_tuple(bin_of(row, "batch row"), 3 * n, era)
        out.append({"type": "array", "items": [read_triple(parts[i:i + 3]) for i in range(0, 3 * n, 3)]})
    return out


def write_batch(values):
    rows = [v.get("items") if v.get("type") == "array" else None for v in values]
    check(all(isinstance(r, list) for r in rows), "unrepresentable", "batched arguments: every row is a typed array")
    if not rows:
        return codec.encode([{"type": "nil"}])
    check(all(rows) and len({len(r) for r in rows}) == 1, "unrepresentable",
          f"batched arguments: rows of lengths {sorted({len(r) for r in rows})} (one length >= 1 is written)")
    out = [{"type": "int", "value": str(len(rows[0]))}, {"type": "int", "value": str(len(rows))},
           {"type": "bool", "value": False}]
    out += [{"type": "bin", "hex": write_tuple([p for v in r for p in triple(v)]).hex()} for r in rows]
    return codec.encode(out)


def decode(fmt, data, era, columns):
    if fmt == "binary-tuple":
        parts, nulls = read_tuple(data, len(columns), era)
        return [decode_column(t, b, era, i in nulls) for i, (t, b) in enumerate(zip(columns, parts))]
    outer = msgpack_values(data)
    # input that ends where a value of the form belongs is truncated (spec BT-WRAPPER, BT-COLLECTION-COUNT,
    # BT-COMPUTE-ARG-BIN): Java meets the end of its buffer, as for any cut value
    check(len(outer) > 0, "malformed.truncated", f"{fmt}: no value")
    if fmt == "object":
        check(len(outer) == 1, "invalid.tuple-type", f"an object is one MessagePack value, not {len(outer)}")
        if outer[0]["type"] == "nil":
            return [{"type": "NULL"}]
        return [read_triple(read_tuple(bin_of(outer[0], "object"), 3, era)[0])]
    if fmt == "object-array":
        check(outer[0]["type"] == "int", "invalid.tuple-type", "an object array starts with its count")
        n = int(outer[0]["value"])
        check(n >= 0, "invalid.tuple-type", f"object array count {n} is negative")
        check(n == 0 or len(outer) > 1, "malformed.truncated", "object array: the input ends where the bin belongs")
        check(len(outer) == (2 if n else 1), "invalid.tuple-type", "an object array is a count and (N > 0) one bin")
        if n == 0:
            return []
        parts, _ = read_tuple(bin_of(outer[1], "object array"), 3 * n, era)
        return [read_triple(parts[i:i + 3]) for i in range(0, 3 * n, 3)]
    if fmt in ("collection", "compute-arg"):
        if outer and outer[0]["type"] == "nil":
            check(len(outer) == 1, "invalid.tuple-type", f"{fmt}: nil followed by more values")
            return [] if fmt == "collection" else [{"type": "NULL"}]
        return read_collection(outer, era) if fmt == "collection" else read_compute_arg(outer, era)
    if fmt == "batched-arguments":
        return read_batch(outer, era)
    if fmt == "table-row":
        check(len(outer) > 1 or outer[0]["type"] != "bitmask", "malformed.truncated", "row: the input ends where the bin belongs")
        check(len(outer) == 2 and outer[0]["type"] == "bitmask", "invalid.tuple-type", "a row is a BITMASK and a bin")
        parts, _ = read_tuple(bin_of(outer[1], "row"), len(columns), era)
        no_value = set(outer[0]["bits"])
        return [{"type": "NO_VALUE"} if i in no_value else decode_column(t, b, era) for i, (t, b) in enumerate(zip(columns, parts))]
    raise NotImplementedError(f"format {fmt!r}")


def encode(fmt, values, era, columns):
    if fmt == "binary-tuple":
        nulls = [i for i, v in enumerate(values) if v["type"] == "NULL"] if era == "beta1" else None
        return write_tuple([encode_element(v, era) for v in values], nulls)
    if fmt == "object":
        v = values[0]
        if v["type"] == "NULL":
            return codec.encode([{"type": "nil"}])
        return codec.encode([{"type": "bin", "hex": write_tuple(triple(v)).hex()}])
    if fmt == "object-array":
        out = [{"type": "int", "value": str(len(values))}]
        if values:
            out.append({"type": "bin", "hex": write_tuple([p for v in values for p in triple(v)]).hex()})
        return codec.encode(out)
    if fmt == "batched-arguments":
        return write_batch(values)
    if fmt == "table-row":
        bits = [i for i, v in enumerate(values) if v["type"] == "NO_VALUE"]
        row = write_tuple([encode_element(v) for v in values])
        return codec.encode([{"type": "bitmask", "era": era, "bits": bits}, {"type": "bin", "hex": row.hex()}])
    if fmt == "collection":
        if not values:
            return codec.encode([{"type": "nil"}])
        tup = write_tuple(collection_parts(values))
        return codec.encode([{"type": "int", "value": str(len(values) + 2)}, {"type": "bin", "hex": tup.hex()}])
    if fmt == "compute-arg":
        v = values[0]
        if v["type"] == "NULL":
            return codec.encode([{"type": "nil"}])
        if v["type"] == "MARSHALLED":
            return codec.encode([{"type": "int", "value": str(COMPUTE_MARSHALLED)}, {"type": "bin", "hex": v["hex"]}])
        tup = write_tuple(triple(v))
        return codec.encode([{"type": "int", "value": str(COMPUTE_NATIVE)}, {"type": "bin", "hex": tup.hex()}])
    raise NotImplementedError(f"format {fmt!r}")
