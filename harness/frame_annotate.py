"""Frame bytes labelled with field names (spec.md 11): the magic, the length, then each MessagePack value of the
message named by the field it is in its kind's layout (harness/frame_layouts.py), e.g. `features`,
`extensions[0].key`, `error.class_name`, `payload[1]`, followed by the value's own MessagePack path and note.

Best effort on any input, as msgpack_annotate: it labels what the bytes say, names where the layout stops fitting
(a value of the wrong type, values or bytes left over) and never allocates by a count or a declared length.
Used by `python3 -m harness annotate --format frame`, the judge's frame diagnoses and the dashboard's hex view."""

import re

from harness import msgpack_annotate
from harness.frame_layouts import EXT_LENGTHS, HANDSHAKES, LAYOUTS, LENGTH_BYTES, MAGIC, RANGES, ERROR_OBJECT, present
from harness.msgpack_annotate import Segment

SCALAR_KINDS = {"int": "int", "long": "int", "bool": "bool", "str": "str", "bin": "bin", "uuid": "ext(3)", "bitmask": "ext(8)"}


class _Value:
    """One top-level MessagePack value of the message: its index, kind, int value and segments."""
    __slots__ = ("kind", "number", "segments", "broken")

    def __init__(self, kind):
        self.kind, self.number, self.segments, self.broken = kind, None, [], False


def _top_values(segments):
    values = []
    for seg in segments:
        index = int(seg.path[1:seg.path.index("]")]) if seg.path.startswith("[") else None
        if index is None or index >= len(values):
            values.append(_Value(seg.kind))
        value = values[-1]
        if seg.part == "malformed":
            value.broken = True
        elif value.kind == "ext" and seg.part == "type":      # path [i].ext(CODE).type: uuid is ext(3)
            value.kind = "ext" + seg.path.split(".ext", 1)[1].split(".")[0]
        elif value.kind == "int" and seg.part in ("value", "payload"):
            value.number = int(seg.note.split()[-1])
        value.segments.append(seg)
    return values


def _first_value_defect(segments):
    """The first value-level defect of the message's bytes, as the value decoder meets it (spec step 4: before the
    layout is walked): bytes cut short or reserved, a str that is not UTF-8, an Ignite ext of the wrong length."""
    for i, seg in enumerate(segments):
        if seg.part == "malformed":
            return f"{seg.path}: {_with_class(seg.note)}"
        if seg.kind == "str" and seg.part == "payload" and seg.note == "not UTF-8":
            return f"{seg.path}: not UTF-8: invalid.utf8"
        if seg.part == "type" and seg.kind == "ext":
            code = int(seg.note.split()[-1])
            if code in EXT_LENGTHS:
                following = segments[i + 1] if i + 1 < len(segments) else None
                if following is not None and following.part == "malformed":
                    continue            # the payload is cut short: that is the defect, found next
                payload = following.path if following is not None else ""
                length = (following.end - following.start
                          if payload == seg.path[:-len(".type")] + ".payload" else 0)
                fixed, minimum = EXT_LENGTHS[code]
                if (fixed is not None and length != fixed) or length < minimum:
                    return f"{seg.path}: ext {code} of {length} bytes: invalid.ext-length"
    return None


def _with_class(reason):
    """msgpack_annotate's reason for stopping, with the error class a value decoder gives there."""
    if reason.startswith("truncated"):
        return f"{reason}: malformed.truncated"
    if reason.startswith("reserved byte"):
        return f"{reason}: malformed.reserved"
    return reason


class _Walk:
    """Names each top-level value by its field; stops naming where the layout no longer fits."""

    def __init__(self, values, features):
        self.values, self.features, self.pos = values, frozenset(features), 0
        self.names = []            # one per value named so far
        self.problem = None        # why the walk stopped, or None

    def take(self, name, type_):
        if self.pos >= len(self.values):
            self.problem = f"the message ends before {name} ({type_}): malformed.truncated"
            return None
        value = self.values[self.pos]
        want = SCALAR_KINDS.get(type_.rstrip("?"), "int" if type_ == "count" else None)
        if value.broken:
            self.names.append(name)
            self.pos += 1
            self.problem = f"{name}: not a complete MessagePack value ({_with_class(value.segments[-1].note)})"
            return None
        if want is not None and value.kind != want and not (type_.endswith("?") and value.kind == "nil"):
            wrong = f"expected {'int' if type_ == 'count' else type_.rstrip('?')}, got {value.kind}: frame.field-type"
            self.names.append(f"{name} ({wrong})")
            self.pos += 1
            self.problem = f"{name}: {wrong}"
            return None
        low, high = RANGES.get(type_.rstrip("?"), (None, None))
        if low is not None and value.kind == "int" and not low <= value.number <= high:
            wrong = f"{value.number} is outside the field's {type_.rstrip('?')} range: frame.field-type"
            self.names.append(f"{name} ({wrong})")
            self.pos += 1
            self.problem = f"{name}: {wrong}"
            return None
        self.names.append(name)
        self.pos += 1
        return value

    def field(self, name, type_):
        """Names the values of one field; False once the walk has stopped."""
        if type_.endswith("?") and self.pos < len(self.values) and self.values[self.pos].kind == "nil":
            return self.take(name, "nil?") is not None
        base = type_.rstrip("?")
        if base in SCALAR_KINDS:
            return self.take(name, type_) is not None
        if base == "features":
            return self.take(name, "bin") is not None
        if base in ("extensions", "uuid-list"):
            count = self.take(f"{name} count", "count")
            if count is None:
                return False
            if count.number < 0:
                self.names[-1] += " (negative: frame.field-type)"
                self.problem = f"{name}: negative count {count.number}: frame.field-type"
                return False
            for i in range(count.number):      # stops at the first missing value: no allocation by the count
                if base == "uuid-list":
                    ok = self.take(f"{name}[{i}]", "uuid") is not None
                else:
                    ok = (self.take(f"{name}[{i}].key", "str") is not None
                          and self.take(f"{name}[{i}].value", "any") is not None)
                if not ok:
                    return False
            return True
        if base == "error":
            return self.layout(ERROR_OBJECT, prefix=f"{name}.")
        assert base == "payload", base
        for i in range(len(self.values) - self.pos):
            self.take(f"payload[{i}]", "any")
        return True

    def layout(self, fields, prefix=""):
        seen = {}
        for name, type_, when in fields:
            if not present(when, seen, self.features):
                continue
            at = self.pos
            if not self.field(prefix + name, type_):
                return False
            if at < len(self.values):
                seen[name] = (self.values[at].kind, self.values[at].number)
        return True


def segments(data, kind, features=()):
    """(segments, problem): every byte range of a frame of this kind, its path the field name (then the value's own
    MessagePack path), and None or why the bytes stop fitting the frame layout."""
    data = bytes(data)
    out, pos, problem = [], 0, None
    if kind in HANDSHAKES:
        magic = data[:len(MAGIC)]
        note = "'IGNI'" if magic == MAGIC else f"not 'IGNI' ({MAGIC.hex()}): frame.magic"
        if len(magic) < len(MAGIC):
            note = f"cut short: the magic needs {len(MAGIC)} bytes: malformed.truncated"
        out.append(Segment(0, len(magic), "magic", "header", "frame", note))
        pos = len(magic)
        if len(magic) < len(MAGIC) or magic != MAGIC:
            return _rest(out, data, pos, "after the magic"), note
    raw = data[pos:pos + LENGTH_BYTES]
    if len(raw) < LENGTH_BYTES:
        note = f"cut short: the length needs {LENGTH_BYTES} bytes: malformed.truncated"
        out.append(Segment(pos, len(data), "length", "length", "frame", note))
        return out, note
    length = int.from_bytes(raw, "big", signed=True)
    if length < 0:
        note = f"length {length} (top bit set): frame.length"
        out.append(Segment(pos, pos + LENGTH_BYTES, "length", "length", "frame", note))
        return _rest(out, data, pos + LENGTH_BYTES, "after the length"), note
    body_at = pos + LENGTH_BYTES
    available = len(data) - body_at
    note = f"{length} bytes follow" + ("" if available >= length else f", only {available} do: malformed.truncated")
    out.append(Segment(pos, body_at, "length", "length", "frame", note))
    if available < length:
        problem = note
    body = data[body_at:body_at + length]
    body_segments, error = msgpack_annotate.annotate(body)
    values = _top_values(body_segments)
    walk = _Walk(values, features)
    walk.layout(LAYOUTS[kind])
    problem = problem or _first_value_defect(body_segments) or walk.problem
    for i, value in enumerate(values):
        name = walk.names[i] if i < len(walk.names) else (
            "(after the last field: frame.trailing)" if walk.problem is None else "(not read: the layout stopped)")
        if i >= len(walk.names) and walk.problem is None and not problem:
            problem = f"{len(values) - i} values after the last field: frame.trailing"
        for seg in value.segments:
            sub = seg.path[seg.path.index("]") + 1:] if seg.path.startswith("[") else ""
            out.append(Segment(body_at + seg.start, body_at + seg.end, name + sub, seg.part, seg.kind, seg.note))
    end = body_at + len(body)
    if end < len(data):
        out.append(Segment(end, len(data), "(after the frame: frame.trailing)", "malformed", "frame",
                           f"{len(data) - end} bytes"))
        problem = problem or f"{len(data) - end} bytes after the frame: frame.trailing"
    return out, problem


def _rest(out, data, pos, where):
    if pos < len(data):
        out.append(Segment(pos, len(data), f"({where}: not read)", "malformed", "frame", f"{len(data) - pos} bytes"))
    return out


def field_at(segs, offset):
    """The field (path) holding the byte at offset."""
    for seg in segs:
        if seg.start <= offset < seg.end:
            return seg.path
    return "(past the end)"


def field_name(data, kind, features, offset):
    """The top-level field (a key of the vector's fields) whose bytes hold offset, or None (magic, length, past
    the end, outside the layout)."""
    segs, _ = segments(data, kind, features)
    path = field_at(segs, offset)
    return re.split(r"[.\[ ]", path, maxsplit=1)[0] if not path.startswith("(") else None


def note_at(segs, offset):
    for seg in segs:
        if seg.start <= offset < seg.end:
            return seg.note
    return "(past the end)"


MAX_LINE_BYTES = 16


def lines(data, kind, features=(), focus=None, segs=None):
    """Every range as a line: '>' marks the one holding focus, then offset, bytes, field path and note."""
    if segs is None:
        segs, problem = segments(data, kind, features)
    else:
        problem = None
    if not segs:
        return ["    (no bytes)"]
    shown = [" ".join(f"{b:02x}" for b in data[s.start:s.end][:MAX_LINE_BYTES])
             + (" ..." if s.end - s.start > MAX_LINE_BYTES else "") for s in segs]
    width = max(len(text) for text in shown)
    out = [f"  {'>' if focus is not None and s.start <= focus < max(s.end, s.start + 1) else ' '} {s.start:>5}  "
           f"{text:<{width}}  {s.path}  {s.note}" for s, text in zip(segs, shown)]
    if focus is not None and focus >= len(data):
        out.append(f"  > {focus:>5}  (end of bytes)")
    if problem:
        out.append(f"    stops fitting the layout: {problem}")
    return out


def byte_diff(expected, actual, kind, features=(), expected_name="canonical"):
    """Lines saying where actual frame bytes first differ from expected, and in which field; empty if equal."""
    from harness.diagnosis import first_difference
    offset = first_difference(expected, actual)
    if offset is None:
        return []
    exp, _ = segments(expected, kind, features)
    act, _ = segments(actual, kind, features)
    return [f"first difference at byte offset {offset}: {expected_name} field {field_at(exp, offset)} "
            f"({note_at(exp, offset)}), actual field {field_at(act, offset)} ({note_at(act, offset)})",
            f"{expected_name} bytes ({len(expected)}): {expected.hex()[:200]}"] + lines(expected, kind, features,
                                                                                       offset) + [
        f"actual bytes ({len(actual)}): {actual.hex()[:200]}"] + lines(actual, kind, features, offset)
