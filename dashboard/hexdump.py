"""Annotated hex for the page: each byte range with its MessagePack path and meaning (harness's annotator)."""

from harness.msgpack_annotate import annotate_window

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
    kept, total, error = annotate_window(data, HEAD_RANGES, TAIL_RANGES, focus)
    ranges, previous = [], -1
    for i, s in kept:
        if i != previous + 1:
            ranges.append(None)
        ranges.append([s.start, s.end, data[s.start:min(s.end, s.start + MAX_RANGE_BYTES)].hex(), _short(s.path),
                       s.note, s.part])
        previous = i
    return {"length": len(data), "ranges": ranges, "more": total - len(kept), "error": error}
