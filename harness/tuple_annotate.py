"""Human-readable Binary Tuple bytes for diagnoses (spec 6.2): header, offset entries, element ranges; and the
formats that wrap a tuple in MessagePack (object, object-array, table-row, collection, compute-arg, batched-arguments), with the tuple inside the bin shown
element by element.

Best effort on any input: it describes what the bytes say and stops where they stop making sense."""

from harness import msgpack_annotate
from harness.diagnosis import first_difference

FORMATS = ("msgpack", "binary-tuple", "object", "object-array", "table-row", "collection", "compute-arg", "batched-arguments")
OBJECT_LABELS = ("type id", "scale", "value")      # spec 6.2.5: one object is a 3-element tuple

SIZE_CLASS = {0: 1, 1: 2, 2: 4}


def annotate(data, columns, focus=None, origin=0, path=""):
    """Lines: offset, bytes, what they are; '>' marks the range holding `focus`. origin: where data starts in the
    bytes shown (a tuple inside a bin), path: what it is there."""
    n = len(columns or [])
    if not data:
        return ["    (no bytes)"]
    rows = []
    flags = data[0]
    size = SIZE_CLASS.get(flags & 3)
    rows.append((0, 1, f"header flags {flags:02x}: " + (f"{size}-byte offsets" if size else "offset size class 3 (invalid)")
                 + (f", reserved bits {flags & 0xfc:02x}" if flags & 0xfc else "")))
    ends = []
    if size:
        for i in range(n):
            at = 1 + i * size
            if at + size > len(data):
                rows.append((at, len(data), f"offset entry {i}: cut short"))
                break
            ends.append(int.from_bytes(data[at:at + size], "little"))
            rows.append((at, at + size, f"offset entry {i}: element {i} ends at value-area offset {ends[-1]}"))
        base, start = 1 + n * size, 0
        for i, end in enumerate(ends):
            label = columns[i]
            if end < start:
                rows.append((base + start, base + start, f"element {i} ({label}): end {end} < start {start} (decreasing)"))
                break
            if base + end > len(data):
                rows.append((base + start, len(data), f"element {i} ({label}): ends past the input ({base + end} > {len(data)})"))
                break
            rows.append((base + start, base + end, f"element {i} ({label}): {end - start} bytes" + (" (NULL)" if end == start else "")))
            start = end
        if len(ends) == n and base + start < len(data):
            rows.append((base + start, len(data), "bytes after the last element"))
    lines = []
    for begin, end, note in rows:
        lines.append(_line(data[begin:end], origin + begin, origin + end, f"{path}{note}", focus))
    return lines


def _line(raw, begin, end, note, focus):
    mark = ">" if focus is not None and begin <= focus < max(end, begin + 1) else " "
    shown = " ".join(f"{b:02x}" for b in raw[:16]) + (" ..." if len(raw) > 16 else "")
    return f"  {mark} {begin:>5}  {shown:<24}  {note}"


def annotate_format(data, fmt, columns=None, focus=None):
    """Annotated lines for bytes of any vector format: MessagePack outside, the Binary Tuple inside a bin by its
    elements (object and compute-arg kind 0: type id, scale, value; object-array and each batched-arguments row: three per object; collection:
    type id, count, items; table-row: the columns)."""
    if fmt == "binary-tuple":
        return annotate(data, columns, focus)
    segments, _ = msgpack_annotate.annotate(data)
    if not segments:
        return ["    (no bytes)"]
    lines, count = [], None
    for seg in segments:
        if seg.kind == "int" and seg.part in ("value", "payload") and seg.path.startswith("[0]") and count is None:
            count = _int_note(seg.note)         # the int before the bin: object count, element count or kind
        marshalled = fmt == "compute-arg" and count != 0     # spec 6.4: only kind 0 (NATIVE) holds a tuple
        if fmt != "msgpack" and seg.part == "payload" and seg.kind == "bin" and not marshalled:
            labels = _labels(fmt, columns, count)
            lines.append(_line(data[seg.start:seg.start], seg.start, seg.start, f"{seg.path}: a Binary Tuple of "
                               f"{len(labels)} elements ({seg.end - seg.start} bytes):", None))
            lines += annotate(data[seg.start:seg.end], labels, focus, origin=seg.start, path="    ")
            continue
        lines.append(_line(data[seg.start:seg.end], seg.start, seg.end, f"{seg.path}  {seg.note}", focus))
    return lines


def _labels(fmt, columns, count):
    if fmt == "object":
        return list(OBJECT_LABELS)
    if fmt in ("object-array", "batched-arguments"):   # batched-arguments: the first int is the row length
        return [f"object {i} {label}" for i in range(max(count or 0, 0)) for label in OBJECT_LABELS]
    if fmt == "compute-arg":
        return list(OBJECT_LABELS)
    if fmt == "collection":                      # spec 6.3: N elements, the type id, the count and N - 2 items
        return ["type id", "count"] + [f"item {i}" for i in range(max((count or 0) - 2, 0))]
    return list(columns or [])


def _int_note(note):
    try:
        return int(note.split()[-1])
    except (ValueError, IndexError):
        return None


def byte_diff(expected, actual, columns, expected_name="canonical", fmt="binary-tuple"):
    offset = first_difference(expected, actual)
    if offset is None:
        return []
    return ([f"first difference at byte offset {offset}", f"{expected_name} bytes ({len(expected)}): {expected.hex()[:200]}"]
            + annotate_format(expected, fmt, columns, offset)
            + [f"actual bytes ({len(actual)}): {actual.hex()[:200]}"] + annotate_format(actual, fmt, columns, offset))
