"""A tolerant MessagePack structure walker: labels every byte range with its path, and stops cleanly at bad bytes.

Paths name top-level values [i], then .items[j] (arrays), .entries[k].key / .value (maps), then the part of a
value: .<family>.header / .length / .type / .payload; a byte inside a payload is .payload[n]. Scalars that are a
single byte (fixint, nil, bool) are labelled by the value path alone.
"""

import collections
import struct
from typing import NamedTuple

MAX_DEPTH = 600   # deeper than any conforming input needs (the decode limit is 512); keeps the walk bounded
# Labelled ranges per walk: a runner's answer may be megabytes of one-byte values (~250 bytes of memory each);
# the largest corpus value has ~130,000 ranges.
MAX_SEGMENTS = 200_000


class Segment(NamedTuple):
    start: int
    end: int
    path: str
    part: str      # value | header | length | type | payload | malformed
    kind: str      # int, str, bin, float32, float64, array, map, ext, nil, bool, malformed
    note: str


class _Stop(Exception):
    def __init__(self, offset, path, reason):
        super().__init__(reason)
        self.offset, self.path, self.reason = offset, path, reason


def annotate(data):
    """(segments, error): the labelled ranges in order, and None or the reason the walk stopped."""
    walker = _Walker(bytes(data))
    try:
        walker.walk()
        return walker.segments, None
    except _Stop as stop:
        walker.segments.append(Segment(stop.offset, len(walker.data), stop.path, "malformed", "malformed",
                                       stop.reason))
        return walker.segments, stop.reason


def annotate_window(data, head, tail, focus=None, around=8):
    """What annotate() gives, for a page that shows only some ranges: (kept, total, error), kept being
    (index, Segment) for the first `head` ranges, the last `tail`, and `around` ranges either side of the one
    holding byte offset focus (if given), in order. The other ranges are counted, not
    kept as Segments (the walk itself, and its labels, cost the same: a 65,535-element value takes ~3/4 of
    annotate()'s time)."""
    walker = _WindowWalker(bytes(data), head, tail, focus, around)
    error = None
    try:
        walker.walk()
    except _Stop as stop:
        walker.keep(Segment(stop.offset, len(walker.data), stop.path, "malformed", "malformed", stop.reason))
        error = stop.reason
    return walker.kept(), walker.count, error


def path_at(segments, offset):
    """The path of the byte at offset, with the payload index for bytes inside a payload."""
    for seg in segments:
        if seg.start <= offset < seg.end:
            if seg.part == "payload" and seg.end - seg.start > 1:
                return f"{seg.path}[{offset - seg.start}]"
            return seg.path
    return "(past the end)"


def nan_payload_ranges(segments):
    """(start, end, width) for every float payload holding a NaN."""
    return [(seg.start, seg.end, seg.kind) for seg in segments
            if seg.part == "payload" and seg.kind in ("float32", "float64") and seg.note.startswith("NaN")]


def is_nan_bytes(raw, kind):
    bits = int.from_bytes(raw, "big")
    if kind == "float32":
        return len(raw) == 4 and (bits & 0x7F800000) == 0x7F800000 and (bits & 0x007FFFFF) != 0
    return len(raw) == 8 and (bits & 0x7FF0000000000000) == 0x7FF0000000000000 and (bits & 0xFFFFFFFFFFFFF) != 0


_UINT = {0xCC: 1, 0xCD: 2, 0xCE: 4, 0xCF: 8}
_SINT = {0xD0: 1, 0xD1: 2, 0xD2: 4, 0xD3: 8}
_STR = {0xD9: 1, 0xDA: 2, 0xDB: 4}
_BIN = {0xC4: 1, 0xC5: 2, 0xC6: 4}
_EXT = {0xC7: 1, 0xC8: 2, 0xC9: 4}
_FIXEXT = {0xD4: 1, 0xD5: 2, 0xD6: 4, 0xD7: 8, 0xD8: 16}
_ARRAY = {0xDC: 2, 0xDD: 4}
_MAP = {0xDE: 2, 0xDF: 4}


class _Walker:
    def __init__(self, data):
        self.data, self.pos, self.segments = data, 0, []
        self.stack = []    # open containers: [path, children still to read, children read, is_map]
        self.count = 0     # ranges labelled so far

    def walk(self):
        # Iterative, so deep nesting needs no recursion; the stack depth is the nesting depth.
        index = 0
        while True:
            if self.stack:
                frame = self.stack[-1]
                if frame[1] == 0:
                    self.stack.pop()
                    continue
                frame[1] -= 1
                n = frame[2]
                frame[2] += 1
                path = (f"{frame[0]}.entries[{n // 2}].{'value' if n % 2 else 'key'}" if frame[3]
                        else f"{frame[0]}.items[{n}]")
            elif self.pos < len(self.data):
                path = f"[{index}]"
                index += 1
            else:
                return
            self.value(path, len(self.stack))

    def take(self, n, path, what):
        if self.pos + n > len(self.data):
            raise _Stop(self.pos, path, f"truncated: {what} needs {n} bytes, {len(self.data) - self.pos} remain")
        start = self.pos
        self.pos += n
        return start, self.data[start:self.pos]

    def add(self, start, path, part, kind, note):
        self.segments.append(Segment(start, self.pos, path, part, kind, note))
        self.count += 1

    def value(self, path, depth):
        if self.count >= MAX_SEGMENTS:
            raise _Stop(self.pos, path, f"more than {MAX_SEGMENTS} ranges; not annotated further")
        if depth > MAX_DEPTH:
            raise _Stop(self.pos, path, f"nested deeper than {MAX_DEPTH}; not annotated further")
        start, (b,) = self.take(1, path, "a value")
        if b <= 0x7F or b >= 0xE0:
            self.add(start, path, "value", "int", f"fixint {b if b <= 0x7F else b - 256}")
        elif b <= 0x8F:
            self.add(start, f"{path}.map.header", "header", "map", f"fixmap, {b & 0x0F} entries")
            self.entries(path, b & 0x0F)
        elif b <= 0x9F:
            self.add(start, f"{path}.array.header", "header", "array", f"fixarray, {b & 0x0F} items")
            self.items(path, b & 0x0F)
        elif b <= 0xBF:
            self.add(start, f"{path}.str.header", "header", "str", f"fixstr, length {b & 0x1F}")
            self.payload(path, "str", b & 0x1F)
        elif b == 0xC0:
            self.add(start, path, "value", "nil", "nil")
        elif b == 0xC1:
            self.pos = start
            raise _Stop(start, path, "reserved byte c1")
        elif b in (0xC2, 0xC3):
            self.add(start, path, "value", "bool", "true" if b == 0xC3 else "false")
        elif b in _BIN or b in _STR:
            kind, width = ("bin", _BIN[b]) if b in _BIN else ("str", _STR[b])
            self.add(start, f"{path}.{kind}.header", "header", kind, f"{kind}{8 * width}")
            length = self.length(path, kind, width)
            self.payload(path, kind, length)
        elif b in _EXT or b in _FIXEXT:
            self.add(start, f"{path}.ext.header", "header", "ext", f"ext{8 * _EXT[b]}" if b in _EXT
                     else f"fixext {_FIXEXT[b]}")
            length = self.length(path, "ext", _EXT[b]) if b in _EXT else _FIXEXT[b]
            t_start, (code,) = self.take(1, f"{path}.ext.type", "the ext type")
            code = code - 256 if code > 127 else code
            self.add(t_start, f"{path}.ext({code}).type", "type", "ext", f"type {code}")
            self.payload(path, f"ext({code})", length, kind="ext")
        elif b in (0xCA, 0xCB):
            kind, width = ("float32", 4) if b == 0xCA else ("float64", 8)
            self.add(start, f"{path}.{kind}.header", "header", kind, kind)
            p_start, raw = self.take(width, f"{path}.{kind}.payload", kind)
            self.add(p_start, f"{path}.{kind}.payload", "payload", kind, _float_note(raw, kind))
        elif b in _UINT or b in _SINT:
            width = _UINT.get(b) or _SINT[b]
            family = "uint" if b in _UINT else "int"
            self.add(start, f"{path}.int.header", "header", "int", f"{family}{8 * width}")
            p_start, raw = self.take(width, f"{path}.int.payload", f"{family}{8 * width}")
            self.add(p_start, f"{path}.int.payload", "payload", "int",
                     str(int.from_bytes(raw, "big", signed=b in _SINT)))
        elif b in _ARRAY:
            self.add(start, f"{path}.array.header", "header", "array", f"array{8 * _ARRAY[b]}")
            self.items(path, self.length(path, "array", _ARRAY[b], "items"))
        else:  # 0xDE, 0xDF
            self.add(start, f"{path}.map.header", "header", "map", f"map{8 * _MAP[b]}")
            self.entries(path, self.length(path, "map", _MAP[b], "entries"))

    def length(self, path, kind, width, unit="bytes"):
        start, raw = self.take(width, f"{path}.{kind}.length", f"the {kind} length")
        n = int.from_bytes(raw, "big")
        self.add(start, f"{path}.{kind}.length", "length", kind, f"{n} {unit}")
        return n

    def payload(self, path, label, length, kind=None):
        kind = kind or label
        start, raw = self.take(length, f"{path}.{label}.payload", f"the {kind} payload")
        if length:
            note = _text_note(raw) if kind == "str" else f"{length} bytes"
            self.add(start, f"{path}.{label}.payload", "payload", kind, note)

    def items(self, path, count):
        # Children are read one by one by walk(): a huge declared count over short input stops at the first
        # missing item, and nothing is allocated from the count.
        self.stack.append([path, count, 0, False])

    def entries(self, path, count):
        self.stack.append([path, 2 * count, 0, True])


class _WindowWalker(_Walker):
    """Keeps only the ranges annotate_window() returns; builds no Segment for the others."""

    def __init__(self, data, head, tail, focus, around):
        super().__init__(data)
        self.head, self.focus, self.around = head, focus, around
        self.tail = collections.deque(maxlen=tail) if tail else None
        # The ranges just before focus until it is found (one more: if no range holds it, the last ones count)
        self.before = collections.deque(maxlen=around + 1) if focus is not None else None
        self.after = None                                   # ranges still to keep after the focus range

    def add(self, start, path, part, kind, note):
        self.keep_args(start, self.pos, path, part, kind, note)

    def keep(self, segment):
        self.keep_args(*segment)

    def keep_args(self, start, end, path, part, kind, note):
        i = self.count
        self.count += 1
        focus = self.focus
        wanted = i < self.head
        if focus is not None:
            if self.after is None and start <= focus < end:
                self.segments.extend(item for item in self.before if item[0] >= i - self.around)
                self.before = None
                self.after = self.around
                wanted = True
            elif self.after:
                self.after -= 1
                wanted = True
        if wanted or self.tail is not None or self.before is not None:
            item = (i, (start, end, path, part, kind, note))     # a Segment only if kept, in kept()
            if wanted:
                self.segments.append(item)
            elif self.before is not None:
                self.before.append(item)
            if self.tail is not None:
                self.tail.append(item)

    def kept(self):
        by_index = dict(self.segments)
        if self.before:
            # focus lies past every range (the walk stopped first): its nearest ranges are the last ones
            by_index.update(self.before)
        by_index.update(self.tail or ())
        return [(i, Segment._make(fields)) for i, fields in sorted(by_index.items())]


def _float_note(raw, kind):
    if is_nan_bytes(raw, kind):
        return f"NaN {raw.hex()}"
    return repr(struct.unpack(">f" if kind == "float32" else ">d", raw)[0])


def _text_note(raw, limit=40):
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return "not UTF-8"
    return repr(text if len(text) <= limit else text[:limit] + "...")
