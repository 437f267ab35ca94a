"""The explicit MessagePack byte builder the golden bytes come from.

Every format the spec names is one small function here, written from the MessagePack spec
(https://github.com/msgpack/msgpack/blob/master/spec.md), not from any library: five runners
agreeing with these bytes means something only because nothing here is shared with them.
Multi-byte quantities in MessagePack headers are big-endian.
"""
import struct


def be(value: int, size: int, signed: bool = False) -> bytes:
    return value.to_bytes(size, "big", signed=signed)


# --- nil, bool ---------------------------------------------------------------------------
NIL = b"\xc0"
FALSE = b"\xc2"
TRUE = b"\xc3"
RESERVED = b"\xc1"  # never used; a decoder must reject it

# --- integers: (name, family, first byte, payload size, low, high) ------------------------------
# Order matters: the canonical writer takes the first form of the value's family that holds it.
INT_FORMS = [
    ("fixint", "uint", None, 0, 0, 0x7F),
    ("uint8", "uint", 0xCC, 1, 0, 2**8 - 1),
    ("uint16", "uint", 0xCD, 2, 0, 2**16 - 1),
    ("uint32", "uint", 0xCE, 4, 0, 2**32 - 1),
    ("uint64", "uint", 0xCF, 8, 0, 2**64 - 1),
    ("negfixint", "int", None, 0, -32, -1),
    ("int8", "int", 0xD0, 1, -(2**7), 2**7 - 1),
    ("int16", "int", 0xD1, 2, -(2**15), 2**15 - 1),
    ("int32", "int", 0xD2, 4, -(2**31), 2**31 - 1),
    ("int64", "int", 0xD3, 8, -(2**63), 2**63 - 1),
]
INT_MIN, INT_MAX = -(2**63), 2**64 - 1


def int_form(name: str, value: int) -> bytes:
    """The integer `value` in the named form (which must hold it)."""
    for form, family, first, size, low, high in INT_FORMS:
        if form == name:
            if not low <= value <= high:
                raise ValueError(f"{value} does not fit {name}")
            if first is None:
                return be(value, 1, signed=value < 0)
            return bytes([first]) + be(value, size, signed=family == "int")
    raise KeyError(name)


def int_forms_holding(value: int) -> list[str]:
    return [f[0] for f in INT_FORMS if f[4] <= value <= f[5]]


def int_canonical_form(value: int) -> str:
    """Smallest form, non-negative values in the uint family, negative ones in the int family."""
    family = "uint" if value >= 0 else "int"
    for form, fam, _first, _size, low, high in INT_FORMS:
        if fam == family and low <= value <= high:
            return form
    raise ValueError(f"integer {value} is outside -2^63 .. 2^64-1")


def integer(value: int) -> bytes:
    return int_form(int_canonical_form(value), value)


# --- floats: written from exact bit patterns -----------------------------------------------
def float32(bits: int) -> bytes:
    return b"\xca" + be(bits, 4)


def float64(bits: int) -> bytes:
    return b"\xcb" + be(bits, 8)


def f32_bits(x: float) -> int:
    return struct.unpack(">I", struct.pack(">f", x))[0]


def f64_bits(x: float) -> int:
    return struct.unpack(">Q", struct.pack(">d", x))[0]


# --- length-prefixed families: (name, first byte or fix base, length size, max length) -------
STR_HEADERS = [("fixstr", 0xA0, 0, 31), ("str8", 0xD9, 1, 2**8 - 1), ("str16", 0xDA, 2, 2**16 - 1), ("str32", 0xDB, 4, 2**32 - 1)]
BIN_HEADERS = [("bin8", 0xC4, 1, 2**8 - 1), ("bin16", 0xC5, 2, 2**16 - 1), ("bin32", 0xC6, 4, 2**32 - 1)]
ARRAY_HEADERS = [("fixarray", 0x90, 0, 15), ("array16", 0xDC, 2, 2**16 - 1), ("array32", 0xDD, 4, 2**32 - 1)]
MAP_HEADERS = [("fixmap", 0x80, 0, 15), ("map16", 0xDE, 2, 2**16 - 1), ("map32", 0xDF, 4, 2**32 - 1)]


def header(table, name: str, length: int) -> bytes:
    for form, first, size, high in table:
        if form == name:
            if not 0 <= length <= high:
                raise ValueError(f"length {length} does not fit {name}")
            return bytes([first + length]) if size == 0 else bytes([first]) + be(length, size)
    raise KeyError(name)


def forms_holding(table, length: int) -> list[str]:
    return [form for form, _first, _size, high in table if length <= high]


def smallest(table, length: int) -> str:
    return forms_holding(table, length)[0]


def str_header(length: int, form: str | None = None) -> bytes:
    return header(STR_HEADERS, form or smallest(STR_HEADERS, length), length)


def bin_header(length: int, form: str | None = None) -> bytes:
    return header(BIN_HEADERS, form or smallest(BIN_HEADERS, length), length)


def array_header(count: int, form: str | None = None) -> bytes:
    return header(ARRAY_HEADERS, form or smallest(ARRAY_HEADERS, count), count)


def map_header(count: int, form: str | None = None) -> bytes:
    return header(MAP_HEADERS, form or smallest(MAP_HEADERS, count), count)


# --- extensions ------------------------------------------------------------------------------
FIXEXT = {1: 0xD4, 2: 0xD5, 4: 0xD6, 8: 0xD7, 16: 0xD8}
EXT_SIZED = [("ext8", 0xC7, 1, 2**8 - 1), ("ext16", 0xC8, 2, 2**16 - 1), ("ext32", 0xC9, 4, 2**32 - 1)]


def ext_forms_holding(length: int) -> list[str]:
    fix = [f"fixext{length}"] if length in FIXEXT else []
    return fix + [form for form, _first, _size, high in EXT_SIZED if length <= high]


def ext_header(code: int, length: int, form: str | None = None) -> bytes:
    """Canonical: fixext for 1/2/4/8/16 bytes, else the smallest sized form (ext8 also for length 0)."""
    if not -128 <= code <= 127:
        raise ValueError(f"ext code {code} is outside -128..127")
    form = form or ext_forms_holding(length)[0]
    if form.startswith("fixext"):
        if int(form[6:]) != length:
            raise ValueError(f"{form} cannot hold {length} bytes")
        return bytes([FIXEXT[length]]) + be(code, 1, signed=True)
    return header(EXT_SIZED, form, length) + be(code, 1, signed=True)


def ext(code: int, payload: bytes, form: str | None = None) -> bytes:
    return ext_header(code, len(payload), form) + payload
