"""Human-readable Binary Tuple bytes for diagnoses (spec 6.2): header, offset entries, element ranges.

Best effort on any input: it describes what the bytes say and stops where they stop making sense."""

from harness.diagnosis import first_difference

SIZE_CLASS = {0: 1, 1: 2, 2: 4}


def annotate(data, columns, focus=None):
    """Lines: offset, bytes, what they are; '>' marks the range holding `focus`."""
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
        mark = ">" if focus is not None and begin <= focus < max(end, begin + 1) else " "
        raw = data[begin:end]
        shown = " ".join(f"{b:02x}" for b in raw[:16]) + (" ..." if len(raw) > 16 else "")
        lines.append(f"  {mark} {begin:>5}  {shown:<24}  {note}")
    return lines


def byte_diff(expected, actual, columns, expected_name="canonical"):
    offset = first_difference(expected, actual)
    if offset is None:
        return []
    return ([f"first difference at byte offset {offset}", f"{expected_name} bytes ({len(expected)}): {expected.hex()[:200]}"]
            + annotate(expected, columns, offset)
            + [f"actual bytes ({len(actual)}): {actual.hex()[:200]}"] + annotate(actual, columns, offset))
