"""Annotated hex for the page: each byte range with its MessagePack path and meaning (harness's annotator); a
frame's ranges with their field names (harness/frame_annotate.py, as `python3 -m harness annotate --format frame`)."""

from harness import frame_annotate
from harness.msgpack_annotate import annotate_window

HEAD_RANGES, TAIL_RANGES = 48, 16   # ranges kept from the start and the end (where malformed input stops)
MAX_RANGE_BYTES = 16   # bytes shown per range; longer payloads are elided
MAX_PATH = 80          # characters of a path kept (its end); a path 600 levels deep is ~6,000


def _short(path):
    return path if len(path) <= MAX_PATH else "…" + path[-(MAX_PATH - 1):]


def annotated(hex_text, focus=None, vector=None):
    """{"length", "ranges": [[start, end, shown hex, path, note, part] or null where ranges were left out],
    "more": how many were left out, "error": why the walk stopped or null}. Ranges near byte offset focus
    are kept too. The bytes of a frame vector (format frame) are labelled by field."""
    data = bytes.fromhex(hex_text)
    if vector is not None and vector.get("format") == "frame":
        kept, total, error = _frame_window(data, vector, focus)
    else:
        kept, total, error = annotate_window(data, HEAD_RANGES, TAIL_RANGES, focus)
    ranges, previous = [], -1
    for i, s in kept:
        if i != previous + 1:
            ranges.append(None)
        ranges.append([s.start, s.end, data[s.start:min(s.end, s.start + MAX_RANGE_BYTES)].hex(), _short(s.path),
                       s.note, s.part])
        previous = i
    return {"length": len(data), "ranges": ranges, "more": total - len(kept), "error": error}


def _frame_window(data, vector, focus, around=8):
    """What annotate_window gives, for a frame: the first and last ranges and those around focus."""
    segments, problem = frame_annotate.segments(data, vector["frame"], vector.get("features", ()))
    at = next((i for i, s in enumerate(segments) if focus is not None and s.start <= focus < s.end), None)
    keep = [i for i in range(len(segments)) if i < HEAD_RANGES or i >= len(segments) - TAIL_RANGES
            or (at is not None and abs(i - at) <= around)]
    return [(i, segments[i]) for i in keep], len(segments), problem
