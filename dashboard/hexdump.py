"""Annotated hex for the page: each byte range with its MessagePack path and meaning (harness's annotator)."""

from harness.msgpack_annotate import annotate

HEAD_RANGES, TAIL_RANGES = 48, 16   # ranges kept from the start and the end (where malformed input stops)
MAX_RANGE_BYTES = 16   # bytes shown per range; longer payloads are elided
MAX_PATH = 80          # characters of a path kept (its end); a path 600 levels deep is ~6,000


def _short(path):
    return path if len(path) <= MAX_PATH else "…" + path[-(MAX_PATH - 1):]


def annotated(hex_text, focus=None):
    """{"length", "ranges": [[start, end, shown hex, path, note, part] or null where ranges were left out],
    "more": how many were left out, "error": why the walk stopped or null}. Ranges near byte offset focus
    are kept too."""
    data = bytes.fromhex(hex_text)
    segments, error = annotate(data)
    keep = set(range(min(HEAD_RANGES, len(segments)))) | set(range(max(0, len(segments) - TAIL_RANGES), len(segments)))
    if focus is not None:
        at = next((i for i, s in enumerate(segments) if s.start <= focus < s.end), len(segments) - 1)
        keep |= set(range(max(0, at - 8), min(len(segments), at + 9)))
    ranges, previous = [], -1
    for i in sorted(keep):
        if i != previous + 1:
            ranges.append(None)
        s = segments[i]
        ranges.append([s.start, s.end, data[s.start:min(s.end, s.start + MAX_RANGE_BYTES)].hex(), _short(s.path),
                       s.note, s.part])
        previous = i
    return {"length": len(data), "ranges": ranges, "more": len(segments) - len(keep), "error": error}
