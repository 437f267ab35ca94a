"""Typed values (schema/value.schema.json) <-> MessagePack bytes through msgpack-python.

The library writes and reads everything it can express exactly; the few raw-byte paths say why."""
import itertools
import struct

import msgpack

import ignite_ext
from ignite_ext import WireError, check

MAX_DEPTH = 512  # nesting beyond this is limit.depth (the brief's limit; 64 must work)

# Format bytes that decide how a value is read (everything else is a scalar the library reads whole).
ARRAY = {*range(0x90, 0xa0), 0xdc, 0xdd}
MAP = {*range(0x80, 0x90), 0xde, 0xdf}
STR = {*range(0xa0, 0xc0), 0xd9, 0xda, 0xdb}
# ext format byte -> (header length, payload length or None when the header holds it, width of that length)
EXT = {0xd4: (2, 1, 0), 0xd5: (2, 2, 0), 0xd6: (2, 4, 0), 0xd7: (2, 8, 0), 0xd8: (2, 16, 0),
       0xc7: (3, None, 1), 0xc8: (4, None, 2), 0xc9: (6, None, 4)}
# Format byte -> what value() does with it: one table lookup per value instead of a chain of tests (the large
# containers have 65,536 elements). The scalars the library reads whole are named by their notation type.
KIND = ["int"] * 256   # positive and negative fixint, uint 8-64, int 8-64
for _fmt in ARRAY:
    KIND[_fmt] = "array"
for _fmt in MAP:
    KIND[_fmt] = "map"
for _fmt in STR:
    KIND[_fmt] = "str"
for _fmt in EXT:
    KIND[_fmt] = "ext"
KIND[0xc0], KIND[0xc2], KIND[0xc3], KIND[0xca], KIND[0xcb] = "nil", "bool", "bool", "float32", "float64"
KIND[0xc4] = KIND[0xc5] = KIND[0xc6] = "bin"
KIND[0xc1] = "reserved"   # the library raises FormatError

# ---------------------------------------------------------------- encode

def new_packer():
    # use_bin_type: bytes -> bin, str -> str with str8; float64 always (float32 is written raw, see below).
    # No autoreset: the packer keeps what it writes in its own buffer, not one bytes object per value.
    return msgpack.Packer(use_bin_type=True, use_single_float=False, autoreset=False)


def encode(values):
    p, out = new_packer(), bytearray()   # out: what came before the last raw write (raw_write)
    encode_values(p, values, out)
    out += p.bytes()
    return bytes(out)


def raw_write(p, out, data):
    """Appends bytes the library does not write after all the packer holds."""
    out += p.bytes()
    p.reset()
    out += data


def encode_values(p, values, out):
    """Packs each typed value. A loop over the values, not a call per value: the large containers have 65,536
    elements, mostly nil (the first test). Containers recurse, one call per nesting level."""
    pack = p.pack
    for v in values:
        t = v["type"]
        if t == "nil":
            pack(None)
        elif t == "int":
            try:
                pack(int(v["value"]))  # the library picks the canonical width and family
            except OverflowError as e:
                raise WireError("unrepresentable", f"{v['value']}: {e}") from None
        elif t == "bool":
            pack(v["value"])
        elif t == "float32":
            # Raw: the library writes float32 only for a whole call (use_single_float) and goes through a double,
            # which quiets signalling NaNs; ca + the given bits is exact.
            raw_write(p, out, b"\xca" + bytes.fromhex(v["bits"]))
        elif t == "float64":
            pack(struct.unpack(">d", bytes.fromhex(v["bits"]))[0])  # bits survive (NaN payloads too)
        elif t == "str":
            pack(v["value"])
        elif t == "bin":
            pack(bytes.fromhex(v["hex"]))
        elif t == "array":
            p.pack_array_header(len(v["items"]))
            encode_values(p, v["items"], out)
        elif t == "map":
            p.pack_map_header(len(v["entries"]))
            encode_values(p, itertools.chain.from_iterable(v["entries"]), out)   # key, value, key, value, ...
        elif t == "ext":
            encode_ext(p, v["code"], bytes.fromhex(v["hex"]), out)
        else:  # an Ignite type (value.schema.json); ignite_ext refuses what its era does not assign
            encode_ext(p, *ignite_ext.encode(v), out)


def encode_ext(p, code, payload, out):
    check(-128 <= code <= 127, "unrepresentable", f"ext code {code} outside -128..127")
    if code >= 0:
        p.pack(msgpack.ExtType(code, payload))
        return
    # Raw: ExtType only takes codes 0..127. Same container choice as the library's (fixext for 1/2/4/8/16,
    # else the smallest of ext8/16/32).
    n = len(payload)
    fix = {1: 0xd4, 2: 0xd5, 4: 0xd6, 8: 0xd7, 16: 0xd8}
    if n in fix:
        head = bytes([fix[n]])
    elif n < 2**8:
        head = struct.pack(">BB", 0xc7, n)
    elif n < 2**16:
        head = struct.pack(">BH", 0xc8, n)
    else:
        check(n < 2**32, "unrepresentable", "ext payload longer than ext32 allows")
        head = struct.pack(">BI", 0xc9, n)
    raw_write(p, out, head + struct.pack(">b", code) + payload)

# ---------------------------------------------------------------- decode

def reject_ext(code, data):
    raise AssertionError("exts are read by read_ext, never by the library")  # it cannot read codes < -1


def new_unpacker(n):
    # No declared length can exceed the whole input (n bytes); containers are never unpacked by the library.
    return msgpack.Unpacker(raw=True, max_buffer_size=n, max_str_len=n, max_bin_len=n, max_ext_len=n,
                            max_array_len=n, max_map_len=n, ext_hook=reject_ext)


class Decoder:
    """Reads data with u, an Unpacker that holds nothing unread; u.tell() counts from u's first input, so the
    input is at u.tell() = start .. end. Slots and the bound tell: read once per value, most inputs are one."""
    __slots__ = ("data", "start", "end", "ext_codes", "era", "u", "tell")

    def __init__(self, data, era, u):
        self.data, self.ext_codes, self.era, self.u, self.tell = data, ignite_ext.CODES[era], era, u, u.tell
        self.start = u.tell()
        self.end = self.start + len(data)
        u.feed(data)

    def decode_all(self):
        out, tell, end = [], self.tell, self.end
        while tell() < end:
            out.append(self.value(0))
        return out

    def value(self, depth):
        """One value; depth = number of enclosing arrays/maps."""
        # The count checks are lower bounds: an earlier element may have used the bytes.
        pos = self.tell()
        if pos >= self.end:
            raise self.short(1, "a value")
        fmt = self.data[pos - self.start]
        kind = KIND[fmt]
        if kind == "nil":
            self.u.skip()
            return NIL
        if kind == "int":
            return {"type": "int", "value": str(self.u.unpack())}
        if kind == "array" or kind == "map":
            if depth >= MAX_DEPTH:
                raise WireError("limit.depth", f"nesting deeper than {MAX_DEPTH}")
            if kind == "array":
                n = self.u.read_array_header()
                if n > self.end - self.tell():   # each element takes >= 1 byte: check before iterating
                    raise self.short(n, f"array of {n}")
                return {"type": "array", "items": [self.value(depth + 1) for _ in range(n)]}
            n = self.u.read_map_header()
            if 2 * n > self.end - self.tell():   # each entry takes >= 2 bytes
                raise self.short(2 * n, f"map of {n}")
            return {"type": "map", "entries": [[self.value(depth + 1), self.value(depth + 1)] for _ in range(n)]}
        if kind == "str":
            try:  # raw=True: the library gives the bytes
                return {"type": "str", "value": self.u.unpack().decode("utf-8")}  # strict: overlong, surrogates, > U+10FFFF
            except UnicodeDecodeError as e:
                raise WireError("invalid.utf8", str(e)) from None
        if kind == "ext":
            return self.read_ext(fmt)
        if kind == "float32":
            # Raw: the library widens float32 to a double (quieting signalling NaNs); read the 4 bits.
            raw = self.u.read_bytes(5)
            if len(raw) != 5:
                raise WireError("malformed.truncated", "float32 cut short")
            return {"type": "float32", "bits": raw[1:].hex()}
        v = self.u.unpack()  # bool, float64, bin (0xc1: the library raises FormatError)
        if kind == "bool":
            return {"type": "bool", "value": v}
        if kind == "float64":
            return {"type": "float64", "bits": struct.pack(">d", v).hex()}
        return {"type": "bin", "hex": v.hex()}

    def short(self, n, what):
        """The error for what, which needs n bytes, where fewer are left. Made here, raised by the caller, tested
        there: the message is formatted only on failure, and a raise from one frame less costs less (half the
        corpus's ops are rejections, the most of them for truncated inputs)."""
        return WireError("malformed.truncated", f"{what} needs at least {n} more bytes, {self.end - self.tell()} left")

    def read_ext(self, fmt):
        # Own header parse: msgpack-python rejects ext codes < -1 and turns -1 into a Timestamp.
        head_len, size, width = EXT[fmt]
        pos = self.tell()
        left = self.end - pos
        if head_len > left:
            raise self.short(head_len, "ext header")
        if size is None:
            at = pos - self.start + 1
            size = int.from_bytes(self.data[at:at + width], "big")
        if head_len + size > left:
            raise self.short(head_len + size, f"ext payload of {size}")
        raw = self.u.read_bytes(head_len + size)  # advances the library's cursor past the ext
        code = (raw[head_len - 1] ^ 0x80) - 0x80   # the signed code byte
        payload = raw[head_len:]
        if code in self.ext_codes:
            return ignite_ext.decode(self.era, code, payload)
        return {"type": "ext", "code": code, "hex": payload.hex()}


# ---------------------------------------------------------------- decode, whole values at once

NIL, TRUE, FALSE = {"type": "nil"}, {"type": "bool", "value": True}, {"type": "bool", "value": False}


class Reread(Exception):
    """The library's reading of the input cannot be mapped exactly: read it again value by value."""


class Ext:
    """An ext as the library's ext_hook hands it over (code and payload, any code but -1)."""
    __slots__ = ("code", "data")

    def __init__(self, code, data):
        self.code, self.data = code, data


def unpack_whole(data, era):
    """The typed values of data, each top-level value unpacked whole by the library (arrays -> lists, maps ->
    tuples of (key, value) pairs: wire order and duplicates kept, raw=False reads str with strict UTF-8) and
    then mapped. Raises Reread where that mapping would not be exact (a float: float32 and float64 both come
    back as a Python float, float32 widened; an ext of code -1: a Timestamp) and wherever the library fails or
    the nesting is too deep: Decoder then reads the input again and gives the verdict, so an answer from here is
    always one Decoder would give too. One library call per value instead of one per element."""
    n = len(data)   # >= WHOLE_MIN
    u = msgpack.Unpacker(raw=False, strict_map_key=False, object_pairs_hook=tuple, ext_hook=Ext, max_buffer_size=n,
                         max_str_len=n, max_bin_len=n, max_ext_len=n, max_array_len=n, max_map_len=n)
    u.feed(data)
    out = []
    try:
        while u.tell() < len(data):
            out.append(typed(u.unpack(), 0, era))
    except (Reread, ValueError, msgpack.UnpackException, WireError, NotImplementedError):  # Decoder says it again
        raise Reread from None
    return out


def typed(v, depth, era):
    """The typed value of what the library unpacked (see unpack_whole). A function of its own, not a closure in
    unpack_whole: a closure that calls itself is a reference cycle, which only the cycle collector frees."""
    t = type(v)
    if v is None:
        return NIL
    if t is int:
        return {"type": "int", "value": str(v)}
    if t is str:
        return {"type": "str", "value": v}
    if t is list or t is tuple:
        if depth >= MAX_DEPTH:
            raise Reread
        depth += 1
        if t is list:   # the common scalars inline: the large containers have 65,536 elements
            return {"type": "array", "items": [
                NIL if x is None else {"type": "int", "value": str(x)} if type(x) is int else typed(x, depth, era)
                for x in v]}
        return {"type": "map", "entries": [
            [{"type": "int", "value": str(k)} if type(k) is int else typed(k, depth, era),
             NIL if x is None else typed(x, depth, era)] for k, x in v]}
    if t is bool:
        return TRUE if v else FALSE
    if t is bytes:
        return {"type": "bin", "hex": v.hex()}
    if t is Ext:
        if v.code in ignite_ext.CODES[era]:
            return ignite_ext.decode(era, v.code, v.data)
        return {"type": "ext", "code": v.code, "hex": v.data.hex()}
    raise Reread   # float, Timestamp


# Below this many bytes the input is read value by value at once: there the whole-value path saves nothing, and
# most short inputs of a conformance corpus are ones it would hand back (rejects, floats).
WHOLE_MIN = 64
# Unpackers a short input left with nothing unread, for the next one: making one costs a third of reading a short
# input (2 of 3 ops of the corpus). The library can stop inside a value (OutOfData, FormatError): such an Unpacker
# is dropped. Their limits (WHOLE_MIN) are never reached: the Decoder reads no container with the library and
# a str or bin only once all of it is there, so they read a short input as one made for it would.
_SPARE = []


def decode(data, era):
    if len(data) >= WHOLE_MIN:
        try:
            return unpack_whole(data, era)
        except Reread:
            pass
    small = len(data) < WHOLE_MIN
    u = _SPARE.pop() if small and _SPARE else new_unpacker(WHOLE_MIN if small else len(data))
    d = Decoder(data, era, u)
    try:
        values = d.decode_all()
    except msgpack.OutOfData as e:
        raise WireError("malformed.truncated", f"input ends inside a value ({e})") from None
    except msgpack.FormatError as e:
        raise WireError("malformed.reserved", f"reserved format byte 0xc1 ({e!r})") from None
    except WireError:   # refused between two of the library's reads: u is not inside a value
        if small:
            u.read_bytes(d.end - u.tell())
            _SPARE.append(u)
        raise
    if small:
        _SPARE.append(u)
    return values
