"""The Binary Tuple (IEP-92) byte builder, and the wire forms built on it: tuples, (type, scale, value)
triples ("object", "object-array"), table rows (no-value BITMASK + bin), typed collections ("collection":
an int N, then a bin with type id, count, items) and compute job arguments ("compute-arg": nil, or a kind
int, then a bin holding a triple or marshalled bytes).

Written from spec.md section 6.2 (which cites apache/ignite-3@947054a9148 modules/binary-tuple
BinaryTupleBuilder/BinaryTupleParser and ClientBinaryTupleUtils/ClientMessagePacker), sharing no code with
any runner. Everything in a tuple is little-endian except the decimal unscaled value (big-endian).
Elements are ColumnType-typed values: {"type": "INT32", "value": "7"}, {"type": "NULL"}, ...
"""
import calendar
import struct

from . import ignite, wire
from .ignite import Invalid

# ColumnType name -> id, for the 3.0 wire (14 BITMASK and 19 NUMBER are gone; STRUCT is not on the client wire).
TYPE_IDS = {c["name"]: c["id"] for c in ignite.REGISTRY["column_types"] if "removed" not in c and c["name"] != "STRUCT"}
INT_WIDTHS = {"INT8": (1,), "INT16": (1, 2), "INT32": (1, 2, 4), "INT64": (1, 2, 4, 8)}
YEAR_MIN, YEAR_MAX = -16384, 16383            # DATE: a signed 15-bit year
TIME_FORMS = {4: (10, 10**6), 5: (20, 10**3), 6: (30, 1)}   # length -> (fraction bits, nanos per unit)


def le(n: int, size: int, signed: bool = True) -> bytes:
    return n.to_bytes(size, "little", signed=signed)


def fits(n: int, size: int) -> bool:
    return -(1 << (8 * size - 1)) <= n < (1 << (8 * size - 1))


# --- one element ---------------------------------------------------------------------------------
def date_bytes(v) -> bytes:
    y, m, d = v["year"], v["month"], v["day"]
    if not 1 <= m <= 12 or not 1 <= d <= [31, 29 if calendar.isleap(y) else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]:
        raise Invalid("invalid.tuple-value", f"no date {y}-{m}-{d}")
    if not YEAR_MIN <= y <= YEAR_MAX:
        raise Invalid("unrepresentable", f"year {y} does not fit the 15-bit DATE year")
    return le(((y << 9) | (m << 5) | d) & 0xFFFFFF, 3, signed=False)


def time_bytes(v, size=None) -> bytes:
    h, mi, s, n = v["hour"], v["minute"], v["second"], v["nano"]
    if not (0 <= h <= 23 and 0 <= mi <= 59 and 0 <= s <= 59 and 0 <= n <= 999_999_999):
        raise Invalid("invalid.tuple-value", f"no time {h}:{mi}:{s}.{n}")
    size = size or (6 if n % 1000 else 5 if n % 10**6 else 4)   # the smallest form that holds the precision
    bits, unit = TIME_FORMS[size]
    if n % unit:
        raise ValueError(f"{size}-byte TIME cannot hold nano {n}")
    return le((((h << 12) | (mi << 6) | s) << bits) | n // unit, size, signed=False)


def seconds_nanos(v, low, high) -> bytes:
    seconds, nano = int(v["seconds"]), v["nano"]
    if v.get("signed"):   # signed_nanos: a producer's form, never the canonical one
        return le(seconds, 8) + le(nano, 4)
    if not 0 <= nano <= 999_999_999:
        raise Invalid("invalid.tuple-value", f"nano {nano}")
    if not low <= seconds <= high:
        raise Invalid("invalid.tuple-value" if v["type"] == "TIMESTAMP" else "unrepresentable", f"seconds {seconds}")
    return le(seconds, 8) + (le(nano, 4) if nano else b"")


def signed_nanos(v: dict) -> dict | None:
    """A TIMESTAMP or DURATION with negative, non-whole value as (seconds truncated toward zero, nanos with the
    value's sign): the form the .NET client writes a DURATION in (BinaryTupleBuilder.PutDuration, NodaTime's
    Days and NanosecondOfDay: -1 ns is seconds 0, nanos -1) and the Python client a TIMESTAMP. None when the
    canonical form already is that (the value is >= 0 or whole)."""
    if v.get("type") not in ("TIMESTAMP", "DURATION") or int(v["seconds"]) >= 0 or v["nano"] == 0:
        return None
    return {"type": v["type"], "seconds": str(int(v["seconds"]) + 1), "nano": v["nano"] - 10**9, "signed": True}


def double_bytes(bits: str) -> bytes:
    """4 bytes when the double equals its float32 rounding (x == (double)(float)x, so never for NaN), else 8."""
    raw = bytes.fromhex(bits)
    x = struct.unpack(">d", raw)[0]
    try:
        narrow = struct.pack("<f", x)
    except OverflowError:
        narrow = None
    if narrow is not None and struct.unpack("<f", narrow)[0] == x:
        return narrow
    return raw[::-1]


def element(v: dict, era: str = "3.0") -> bytes:
    """The bytes of one element (b"" for NULL), canonical for the era."""
    t = v["type"]
    if t in ("NULL", "NO_VALUE"):
        return b""
    if era == "beta1":
        return element_beta1(v)
    if t == "BOOLEAN":
        return b"\x01" if v["value"] else b"\x00"
    if t in INT_WIDTHS:
        n = int(v["value"])
        size = next((s for s in INT_WIDTHS[t] if fits(n, s)), None)
        if size is None:
            raise Invalid("unrepresentable", f"{n} does not fit {t}")
        return le(n, size)
    if t == "FLOAT":
        return bytes.fromhex(v["bits"])[::-1]
    if t == "DOUBLE":
        return double_bytes(v["bits"])
    if t == "DECIMAL":
        if not fits(v["scale"], 2):
            raise Invalid("unrepresentable", f"scale {v['scale']} outside int16")
        return le(v["scale"], 2) + ignite.twos_complement(int(v["unscaled"]))
    if t == "DATE":
        return date_bytes(v)
    if t == "TIME":
        return time_bytes(v)
    if t == "DATETIME":
        return date_bytes(v) + time_bytes(v)
    if t == "TIMESTAMP":
        return seconds_nanos(v, ignite.INSTANT_MIN, ignite.INSTANT_MAX)
    if t == "DURATION":
        return seconds_nanos(v, -(2**63), 2**63 - 1)
    if t == "UUID":
        return ignite.uuid_le(v["value"])
    if t == "STRING":
        data = v["value"].encode("utf-8")        # a non-empty UTF-8 string never starts with 80
        return data or b"\x80"
    if t == "BYTE_ARRAY":
        data = bytes.fromhex(v["hex"])
        return b"\x80" + data if not data or data[0] == 0x80 else data
    if t == "PERIOD":
        parts = [v["years"], v["months"], v["days"]]
        size = next((s for s in (1, 2, 4) if all(fits(p, s) for p in parts)), None)
        if size is None:
            raise Invalid("unrepresentable", f"period {parts} outside int32")
        return b"".join(le(p, size) for p in parts)
    raise ValueError(f"unknown element type {t!r}")


def element_variants(v: dict) -> list[tuple[str, bytes, str, str]]:
    """Other bytes a decoder must read as the same element: (label, bytes, why, rule)."""
    t, canon, out = v["type"], element(v), []
    if t in INT_WIDTHS:
        for size in INT_WIDTHS[t]:
            if size > len(canon):
                out.append((f"int-{size}", le(int(v["value"]), size), f"{size}-byte form (sign-extended)", "BT-INT-WIDE"))
    elif t == "DOUBLE" and len(canon) == 4:
        out.append(("double-8", bytes.fromhex(v["bits"])[::-1], "8-byte form of a double that narrows", "BT-DOUBLE"))
    elif t == "DECIMAL":
        out.append(("unscaled-sign-extended", canon[:2] + ignite.twos_complement(int(v["unscaled"]), 1),
                    "unscaled value with one redundant sign byte", "BT-DECIMAL"))
    elif t in ("TIME", "DATETIME"):
        date = date_bytes(v) if t == "DATETIME" else b""
        for size in (5, 6):
            if size > len(canon) - len(date):
                out.append((f"time-{size}", date + time_bytes(v, size), f"{size}-byte time form (finer unit than needed)", "BT-TIME"))
    elif t in ("TIMESTAMP", "DURATION") and v["nano"] == 0:
        out.append(("nano-zero", canon + bytes(4), "12-byte form with nano 0", "BT-" + t))
    elif t == "PERIOD":
        for size in (2, 4):
            if 3 * size > len(canon):
                out.append((f"period-{3 * size}", b"".join(le(v[k], size) for k in ("years", "months", "days")),
                            f"3 x int{8 * size} form", "BT-PERIOD"))
    elif t in ("STRING", "BYTE_ARRAY") and canon[:1] != b"\x80":
        out.append(("prefix-80", b"\x80" + canon, "one leading 80 byte, which readers strip", "BT-VARLEN-PREFIX"))
    return out


# --- the tuple -----------------------------------------------------------------------------------
def entry_size(value_size: int) -> int:
    return 1 if value_size <= 0xFF else 2 if value_size <= 0xFFFF else 4


def tuple_bytes(parts: list[bytes], size: int | None = None, nullmap: bytes = b"") -> bytes:
    """Header, (beta1: null map,) offset table of end offsets, value area. `size` forces the entry size."""
    area = b"".join(parts)
    size = size or entry_size(len(area))
    ends, end = [], 0
    for p in parts:
        end += len(p)
        ends.append(le(end, size, signed=False))
    flags = {1: 0, 2: 1, 4: 2}[size] | (0x04 if nullmap else 0)
    return bytes([flags]) + nullmap + b"".join(ends) + area


def tuple_of(elements: list[dict], era: str) -> bytes:
    if era == "beta1":
        return tuple_beta1(elements)
    return tuple_bytes([element(e) for e in elements])


def tuple_variants(elements: list[dict], era: str) -> list[tuple[str, bytes, str, str]]:
    """Wider offset tables, and (for one element) the element's own non-minimal forms."""
    if era == "beta1":
        return []
    parts = [element(e) for e in elements]
    canon = tuple_bytes(parts)
    out = []
    if len(canon) <= 1024:   # the wider tables of a 64 KiB tuple would only repeat the small ones, at 256 KiB of hex
        for size in (2, 4):
            if size > entry_size(sum(map(len, parts))):
                out.append((f"offsets-{size}", tuple_bytes(parts, size), f"{size}-byte offset entries (wider than needed)", "BT-OFFSET-SIZE"))
    if len(elements) == 1 and elements[0]["type"] != "NULL":
        for label, data, why, rule in element_variants(elements[0]):
            out.append((label, tuple_bytes([data]), why, rule))
    return out


# --- beta1 (BT-1): null map, zero-length defaults, no 80 marker --------------------------------
BETA1_TYPES = ("BOOLEAN", "INT8", "INT16", "INT32", "INT64", "FLOAT", "DOUBLE", "STRING", "BYTE_ARRAY",
               "UUID", "TIME", "TIMESTAMP", "DURATION", "PERIOD", "NUMBER", "DATE", "DATETIME")
# Zero length in beta1 whatever instance the caller held: a nil UUID by value; Instant.EPOCH, Duration.ZERO,
# Period.ZERO and midnight because the java.time factories return those constants (spec 6.2.8). DATE and
# DATETIME were zero length only for the identical constant instance, which no byte-level encoder can know, and
# the reader returns that instance for a zero-length element (BinaryTupleParser dateValue, dateTimeValue): their
# defaults are zero length here too, and the full form is a variant an encoder may write (source bt-beta1.yaml).
BETA1_ZERO = {"UUID": {"value": "00000000-0000-0000-0000-000000000000"},
              "TIME": {"hour": 0, "minute": 0, "second": 0, "nano": 0}, "TIMESTAMP": {"seconds": "0", "nano": 0},
              "DURATION": {"seconds": "0", "nano": 0}, "PERIOD": {"years": 0, "months": 0, "days": 0},
              "DATE": {"year": 0, "month": 1, "day": 1},
              "DATETIME": {"year": 0, "month": 1, "day": 1, "hour": 0, "minute": 0, "second": 0, "nano": 0}}


def element_beta1(v: dict) -> bytes:
    t = v["type"]
    if t not in BETA1_TYPES:
        raise ValueError(f"the corpus models beta1 tuples for {BETA1_TYPES} only, not {t}")
    if t == "STRING":
        return v["value"].encode("utf-8")
    if t == "BYTE_ARRAY":
        return bytes.fromhex(v["hex"])
    if t in BETA1_ZERO:
        return b"" if {k: v[k] for k in BETA1_ZERO[t]} == BETA1_ZERO[t] else element(v)
    if t == "NUMBER":   # appendNumberNotNull: BigInteger.toByteArray(), nothing for zero (by value)
        return ignite.twos_complement(int(v["value"])) if int(v["value"]) else b""
    if t in ("FLOAT", "DOUBLE"):
        x = struct.unpack(">f" if t == "FLOAT" else ">d", bytes.fromhex(v["bits"]))[0]
        if x == 0.0 and v["bits"].startswith("8"):
            raise ValueError("beta1 writes -0.0 as zero length, which reads back as +0.0: not a round trip")
        if x == 0.0:
            return b""
        return bytes.fromhex(v["bits"])[::-1] if t == "FLOAT" else double_bytes(v["bits"])
    return b"" if int(v["value"]) == 0 else element(v)   # BOOLEAN false is the byte 0: zero length too


def tuple_beta1(elements: list[dict]) -> bytes:
    nulls = [i for i, e in enumerate(elements) if e["type"] == "NULL"]
    nullmap = bytearray((len(elements) + 7) // 8) if nulls else bytearray()
    for i in nulls:
        nullmap[i // 8] |= 1 << (i % 8)
    return tuple_bytes([element(e, "beta1") for e in elements], nullmap=bytes(nullmap))


# --- triples: packObjectAsBinaryTuple, packObjectArrayAsBinaryTuple --------------------------------
def int_element(n: int) -> bytes:
    return element({"type": "INT32", "value": str(n)})


def stripped(unscaled: int, scale: int) -> tuple[int, int]:
    """Java BigDecimal.stripTrailingZeros(): zero becomes (0, 0)."""
    if unscaled == 0:
        return 0, 0
    while unscaled % 10 == 0:
        unscaled, scale = unscaled // 10, scale - 1
    return unscaled, scale


def decimal_stored(v: dict, profile: str) -> tuple[int, int]:
    """The (unscaled, scale) a producer stores for a DECIMAL object whose triple scale is its own scale.
    java: shrinkDecimal = stripTrailingZeros when the result's scale fits int16 (BinaryTupleCommon);
    dotnet: as given (AppendBigDecimal); cpp: as given, zero with scale 0 (binary_tuple_builder::append_number)."""
    u, s = int(v["unscaled"]), v["scale"]
    if profile == "java":
        su, ss = stripped(u, s)
        return (su, ss) if fits(ss, 2) else (u, s)
    if profile == "cpp" and u == 0:
        return 0, 0
    return u, s


def decimal_into_column(unscaled: int, scale: int, column_scale: int, profile: str) -> tuple[int, int]:
    """The stored pair a producer writes for a DECIMAL into a row column of scale `column_scale`.
    java: BinaryTupleCommon.shrinkDecimal: HALF_UP to the column scale only when the value's scale is larger,
    then stripTrailingZeros when that scale fits int16. dotnet: BinaryTupleBuilder.AppendBigDecimal: only when
    the value's scale is larger, the unscaled value divided by 10^(difference), truncating; else as given. cpp (main): big_decimal::set_scale(column scale),
    upward too, rounding DOWN; append_number writes zero with scale 0."""
    if profile == "java":
        if scale > column_scale:
            q, r = divmod(abs(unscaled), 10 ** (scale - column_scale))
            q += 2 * r >= 10 ** (scale - column_scale)   # HALF_UP: half away from zero
            unscaled, scale = (q if unscaled >= 0 else -q), column_scale
        su, ss = stripped(unscaled, scale)
        return (su, ss) if fits(ss, 2) else (unscaled, scale)
    if profile == "dotnet":
        if scale > column_scale:   # BigInteger division truncates toward zero; a smaller scale is kept, unstripped
            q = abs(unscaled) // 10 ** (scale - column_scale)
            unscaled, scale = (q if unscaled >= 0 else -q), column_scale
        return unscaled, scale
    if profile == "cpp":
        if scale > column_scale:
            q = abs(unscaled) // 10 ** (scale - column_scale)   # DOWN: toward zero
            unscaled = q if unscaled >= 0 else -q
        else:
            unscaled *= 10 ** (column_scale - scale)
        return (0, 0) if unscaled == 0 else (unscaled, column_scale)
    raise ValueError(f"no decimal column profile {profile!r}")


def triple_parts(v: dict, profile: str = "java") -> list[bytes]:
    t = v["type"]
    if t == "NULL":
        return [b"", b"", b""]
    if t == "DECIMAL":
        if not fits(v["scale"], 4):
            raise Invalid("unrepresentable", f"scale {v['scale']} outside int32")
        u, s = decimal_stored(v, profile)
        return [int_element(TYPE_IDS[t]), int_element(v["scale"]), element({"type": t, "unscaled": str(u), "scale": s})]
    if t not in TYPE_IDS or t == "NULL":
        raise ValueError(f"{t} is not an object type")
    return [int_element(TYPE_IDS[t]), int_element(0), element(v)]


def bin_(data: bytes) -> bytes:
    return wire.bin_header(len(data)) + data


def object_bytes(v: dict) -> bytes:
    return wire.NIL if v["type"] == "NULL" else bin_(tuple_bytes(triple_parts(v)))


def decimal_profile_variants(values: list[dict], build) -> list[tuple[str, bytes, str, str, bool]]:
    """The objects' bytes (build: the triples' parts -> bytes) as the .NET and C++ clients write their DECIMALs
    (BT-OBJECT-DECIMAL: no stripping of trailing zeros; encoder_may_emit), one variant per distinct output. An
    encoder writes every DECIMAL of an object array with its one profile."""
    forms = {}
    if any(v["type"] == "DECIMAL" for v in values):
        for who in ("dotnet", "cpp"):
            try:
                forms.setdefault(build([p for v in values for p in triple_parts(v, who)]), []).append(who)
            except Invalid:   # a scale outside int16 that only stripping brings into range: that client cannot write it
                pass
    return [("-".join(who), data, f"the stored value the {' and '.join(who)} client{'s' if len(who) > 1 else ''} "
             f"write{'' if len(who) > 1 else 's'} (no stripping of trailing zeros; producer profile)", "BT-OBJECT-DECIMAL", True)
            for data, who in forms.items()]


def object_variants(v: dict) -> list[tuple[str, bytes, str, str, bool]]:
    """(label, bytes, why, rule, encoder_may_emit)."""
    if v["type"] == "NULL":
        return [("three-nulls", bin_(tuple_bytes([b"", b"", b""])), "a bin holding three NULL elements", "BT-OBJECT-NULL", False)]
    parts, out = triple_parts(v), []
    out.append(("type-id-2", bin_(tuple_bytes([le(TYPE_IDS[v["type"]], 2)] + parts[1:])), "type id as a 2-byte INT32 element", "BT-INT-WIDE", False))
    if v["type"] == "DECIMAL":
        out += decimal_profile_variants([v], lambda parts: bin_(tuple_bytes(parts)))
    else:
        out.append(("scale-nonzero", bin_(tuple_bytes([parts[0], int_element(3), parts[2]])), "scale element 3, which readers ignore for this type", "BT-OBJECT-SCALE", False))
        for label, data, why, rule in element_variants(v):
            out.append((label, bin_(tuple_bytes(parts[:2] + [data])), why, rule, False))
    return out


def object_array_bytes(values: list[dict]) -> bytes:
    head = wire.integer(len(values))
    if not values:
        return head
    return head + bin_(tuple_bytes([p for v in values for p in triple_parts(v)]))


# --- batched SQL arguments: packBatchedArgumentsAsBinaryTupleArray (spec 6.2.5 BT-BATCH) ---------------
def batch_rows(values: list[dict]) -> list[list[dict]]:
    """The rows of a batch (each a typed array of objects), refused as Java's BatchedArguments and .NET's
    WriteBatchArgs refuse them: an empty row, or rows of different lengths (the row length is written once)."""
    rows = [v["items"] for v in values]
    if any(not r for r in rows):
        raise Invalid("unrepresentable", "a batch row with no arguments (Java: 'Non empty arguments required.')")
    if len({len(r) for r in rows}) > 1:
        raise Invalid("unrepresentable", f"batch rows of lengths {sorted({len(r) for r in rows})}: one row length is written")
    return rows


def batch_bytes(values: list[dict], count_form: str | None = None, row=None, paged: bytes = wire.FALSE) -> bytes:
    """nil for no rows, else rowLen, rowCount (count_form: a wider int form), false (paged), one bin per row."""
    rows = batch_rows(values)
    if not rows:
        return wire.NIL
    count = wire.integer(len(rows)) if count_form is None else wire.int_form(count_form, len(rows))
    row = row or (lambda r: bin_(tuple_bytes([p for v in r for p in triple_parts(v)])))
    return wire.integer(len(rows[0])) + count + paged + b"".join(row(r) for r in rows)


def batch_variants(values: list[dict]) -> list[tuple[str, bytes, str, str, bool]]:
    rows = batch_rows(values)
    if not rows:
        return [("no-rows", wire.integer(0) + wire.integer(0) + wire.FALSE,
                 "row length 0, count 0 and no rows: Java's unpackBatchedArgumentsFromBinaryTupleArray reads an empty batch", "BT-BATCH", False)]
    out = [("dotnet", batch_bytes(values, "int32"),
            "the row count as d2 and 4 bytes, as the .NET client writes it (WriteBatchArgs: ReserveMsgPackInt32, then WriteMsgPackInt32; producer profile)",
            "BT-BATCH", True),
           ("paged-true", batch_bytes(values, paged=wire.TRUE), "the third value true: Java reads it with unpackBoolean and ignores it ('unused now')", "BT-BATCH", False)]
    for s in (2, 4):
        if s > entry_size(max(sum(len(p) for v in r for p in triple_parts(v)) for r in rows)):
            out.append((f"offsets-{s}", batch_bytes(values, row=lambda r: bin_(tuple_bytes([p for v in r for p in triple_parts(v)], s))),
                        f"every row with {s}-byte offset entries", "BT-OFFSET-SIZE", False))
    # Each row is an object array (BT-OBJECT-ARRAY): an encoder writes its DECIMALs in its producer profile
    # (BT-OBJECT-DECIMAL), independently of the count's form, so every (count canonical or d2) x (DECIMAL java,
    # dotnet, cpp) combination but the canonical one; the .NET client writes d2 and dotnet (Sql.cs WriteBatchArgs).
    width = 3 * len(rows[0])
    for count_form, prefix, count_why in ((None, "decimal-", ""), ("int32", "dotnet-decimal-", "the row count as d2 (.NET WriteBatchArgs) and ")):
        def build(parts, count_form=count_form):
            return (wire.integer(len(rows[0])) + (wire.integer(len(rows)) if count_form is None else wire.int_form(count_form, len(rows)))
                    + wire.FALSE + b"".join(bin_(tuple_bytes(parts[i:i + width])) for i in range(0, len(parts), width)))
        for label, data, why, rule, may_emit in decimal_profile_variants([v for r in rows for v in r], build):
            out.append((prefix + label, data, f"{count_why}every row's DECIMALs as {why}", rule, may_emit))
    return out


# --- table rows: packBinaryTuple(builder, noValueSet) ---------------------------------------------
def no_value_mask(values: list[dict], size: int | None = None) -> bytes:
    bits = [i for i, v in enumerate(values) if v["type"] == "NO_VALUE"]
    mask = bytearray(size if size is not None else (max(bits) // 8 + 1 if bits else 0))
    for i in bits:
        mask[i // 8] |= 1 << (i % 8)
    return bytes(mask)


def row_bytes(values: list[dict], mask_size: int | None = None) -> bytes:
    return wire.ext(8, no_value_mask(values, mask_size)) + bin_(tuple_bytes([element(v) for v in values]))


def row_variants(values: list[dict]) -> list[tuple[str, bytes, str, str, bool]]:
    n, forms = len(values), {}
    for who, size in (("dotnet", n // 8 + 1), ("cpp", (n + 7) // 8)):   # MsgPackWriter.WriteBitSet; bytes_for_bits
        forms.setdefault((row_bytes(values, size), size), []).append(who)
    return [("mask-" + "-".join(who), data, f"{size}-byte no-value BITMASK, sized from the column count as the "
             f"{' and '.join(who)} client{'s' if len(who) > 1 else ''} write it (producer profile)", "BT-ROW-NOVALUE", True)
            for (data, size), who in forms.items()]


# --- collections: StreamerReceiverSerializer results (spec 6.3) ----------------------------------------
def collection_type(values: list[dict]) -> str:
    """The one ColumnType of a collection's items (Java: the first item's class; all must have it)."""
    types = {v["type"] for v in values}
    if "NULL" in types:
        raise Invalid("unrepresentable", "a collection item is null (Java: Objects.requireNonNull)")
    if len(types) > 1:
        raise Invalid("unrepresentable", f"collection items of several types {sorted(types)} (Java: 'All items must have the same type')")
    return types.pop()


def collection_parts(values: list[dict], type_id: int | None = None) -> list[bytes]:
    t = collection_type(values)
    return [int_element(TYPE_IDS[t] if type_id is None else type_id), int_element(len(values))] + [element(v) for v in values]


def collection_bytes(values: list[dict]) -> bytes:
    if not values:   # serializeReceiverJobResults: null for an empty list, written as nil
        return wire.NIL
    return wire.integer(len(values) + 2) + bin_(tuple_bytes(collection_parts(values)))


def collection_variants(values: list[dict]) -> list[tuple[str, bytes, str, str, bool]]:
    if not values:
        return [("empty-tuple", wire.integer(2) + bin_(tuple_bytes([int_element(TYPE_IDS["INT32"]), int_element(0)])),
                 "element count 2 and a tuple of type id INT32 and count 0 (Java and .NET read an empty list)", "BT-COLLECTION-EMPTY", False)]
    parts, n = collection_parts(values), wire.integer(len(values) + 2)
    out = [(f"offsets-{s}", n + bin_(tuple_bytes(parts, s)), f"{s}-byte offset entries", "BT-OFFSET-SIZE", False)
           for s in (2, 4) if s > entry_size(sum(map(len, parts)))]
    out.append(("count-int-4", n + bin_(tuple_bytes([parts[0], le(len(values), 4)] + parts[2:])), "the count as a 4-byte INT32 element", "BT-INT-WIDE", False))
    out.append(("element-count-int32", wire.int_form("int32", len(values) + 2) + bin_(tuple_bytes(parts)),
                "the element count as a MessagePack int32 (d2)", "MP-INT-WIDE", False))
    for label, data, why, rule in element_variants(values[0]):
        out.append((f"first-item-{label}", n + bin_(tuple_bytes(parts[:2] + [data] + parts[3:])), f"first item: {why}", rule, False))
    return out


# --- compute job arguments and results: ClientComputeJobPacker (spec 6.4) -----------------------------
COMPUTE_KINDS = {"NATIVE": 0, "TUPLE": 1, "MARSHALLED_CUSTOM": 2, "POJO": 3, "TUPLE_COLLECTION": 4}   # ComputeJobDataType


def compute_arg_bytes(v: dict) -> bytes:
    if v["type"] == "NULL":
        return wire.NIL
    if v["type"] == "MARSHALLED":
        return wire.integer(COMPUTE_KINDS["MARSHALLED_CUSTOM"]) + bin_(bytes.fromhex(v["hex"]))
    return wire.integer(COMPUTE_KINDS["NATIVE"]) + object_bytes(v)


def compute_arg_variants(v: dict) -> list[tuple[str, bytes, str, str, bool]]:
    kind = wire.integer(COMPUTE_KINDS["NATIVE"])
    if v["type"] == "NULL":
        return [("native-three-nulls", kind + bin_(tuple_bytes([b"", b"", b""])),
                 "kind NATIVE and a triple of three NULL elements (readObject: hasNullValue)", "BT-OBJECT-NULL", False)]
    if v["type"] == "MARSHALLED":
        data = bytes.fromhex(v["hex"])
        return [("dotnet", wire.integer(COMPUTE_KINDS["MARSHALLED_CUSTOM"]) + wire.bin_header(len(data), "bin32") + data,
                 "a bin32 (c6) header whatever the length, as the .NET client writes a marshalled argument (MsgPackWriter.Write<TArg>; producer profile)",
                 "MP-BIN-WIDE", True)]
    out = [("kind-int32", wire.int_form("int32", COMPUTE_KINDS["NATIVE"]) + object_bytes(v), "the kind as a MessagePack int32 (d2)", "MP-INT-WIDE", False)]
    return out + [(label, kind + data, why, rule, may_emit) for label, data, why, rule, may_emit in object_variants(v)]


# --- a vector's bytes and variants -----------------------------------------------------------------
def check_columns(fmt: str, columns, values: list[dict], era: str = "3.0") -> None:
    if fmt in ("binary-tuple", "table-row"):
        if len(columns) != len(values):
            raise ValueError(f"{len(columns)} columns for {len(values)} values")
        for c, v in zip(columns, values):
            if (c not in TYPE_IDS or c == "NULL") and not (era == "beta1" and c in BETA1_TYPES):
                raise ValueError(f"column type {c!r}")
            if v["type"] not in ("NULL", "NO_VALUE", c):
                raise ValueError(f"a {v['type']} value in a {c} column")
            if v["type"] == "NO_VALUE" and fmt != "table-row":
                raise ValueError("NO_VALUE exists only in table rows")
    elif fmt in ("object", "compute-arg") and len(values) != 1:
        raise ValueError(f"an {fmt} vector holds exactly one value")
    elif fmt == "batched-arguments":
        if any(v["type"] != "array" or any(i["type"] in ("NO_VALUE", "MARSHALLED") for i in v["items"]) for v in values):
            raise ValueError("batched-arguments values are rows: typed arrays of objects")
        values = [i for v in values for i in v["items"]]
    if any(v["type"] == "MARSHALLED" for v in values) and fmt != "compute-arg":
        raise ValueError("MARSHALLED exists only in compute-arg")


def canonical(fmt: str, values: list[dict], era: str) -> bytes:
    if fmt == "binary-tuple":
        return tuple_of(values, era)
    if fmt == "object":
        return object_bytes(values[0])
    if fmt == "object-array":
        return object_array_bytes(values)
    if fmt == "batched-arguments":
        return batch_bytes(values)
    if fmt == "table-row":
        return row_bytes(values)
    if fmt == "collection":
        return collection_bytes(values)
    if fmt == "compute-arg":
        return compute_arg_bytes(values[0])
    raise ValueError(f"unknown format {fmt!r}")


def duration_profile_variants(fmt: str, values: list[dict], era: str) -> list[tuple[str, bytes, str, str, bool]]:
    """The bytes with every negative, non-whole DURATION in the .NET client's form (signed_nanos; encoder_may_emit,
    BT-DURATION), and with every such TIMESTAMP in the same signed form, which Java's Instant.ofEpochSecond reads
    as the same instant (decoders only)."""
    out = []
    for t, label, why, may_emit in (
            ("DURATION", "dotnet-duration", "every negative non-whole DURATION as the .NET client writes it: seconds truncated toward zero, "
             "nanos negative (BinaryTupleBuilder.PutDuration; producer profile)", True),
            ("TIMESTAMP", "signed-nanos", "every negative non-whole TIMESTAMP as seconds truncated toward zero and negative nanos "
             "(the Python client's form), which Java's Instant.ofEpochSecond reads as the same instant", False)):
        if any(v.get("type") == t and signed_nanos(v) for v in values):
            changed = [signed_nanos(v) if v.get("type") == t and signed_nanos(v) else v for v in values]
            out.append((label, canonical(fmt, changed, era), why, "BT-" + t, may_emit))
    return out


def variants(fmt: str, values: list[dict], era: str) -> list[dict]:
    if fmt == "binary-tuple":
        found = [(*x, False) for x in tuple_variants(values, era)]
    elif fmt == "object":
        found = object_variants(values[0])
    elif fmt == "object-array":
        parts = [p for v in values for p in triple_parts(v)]
        found = [] if not values else [
            (f"offsets-{s}", wire.integer(len(values)) + bin_(tuple_bytes(parts, s)), f"{s}-byte offset entries", "BT-OFFSET-SIZE", False)
            for s in (2, 4) if s > entry_size(sum(map(len, parts)))] + decimal_profile_variants(
            values, lambda parts: wire.integer(len(values)) + bin_(tuple_bytes(parts)))
    elif fmt == "batched-arguments":
        found = batch_variants(values)
    elif fmt == "collection":
        found = collection_variants(values)
    elif fmt == "compute-arg":
        found = compute_arg_variants(values[0])
    else:
        found = row_variants(values)
    if era != "beta1":
        found += duration_profile_variants(fmt, values, era)
    canon, out, seen = canonical(fmt, values, era), [], set()
    for label, data, why, rule, may_emit in found:
        if data == canon or data in seen:
            continue
        seen.add(data)
        out.append({"label": label, "hex": data.hex(), "why": why, "rules": [rule], "encoder_may_emit": may_emit})
    return out
