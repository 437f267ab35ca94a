"""Human-readable failure text: first differing byte, its MessagePack path, annotated hex, typed values."""

import json

from harness.msgpack_annotate import annotate, path_at

CONTEXT_SEGMENTS = 8     # annotated lines shown either side of the interesting one
MAX_LINE_BYTES = 16      # bytes shown per annotated line before eliding
MAX_JSON = 1500          # characters of compact JSON shown per value list


def first_difference(expected, actual):
    for i, (e, a) in enumerate(zip(expected, actual)):
        if e != a:
            return i
    return None if len(expected) == len(actual) else min(len(expected), len(actual))


def byte_diff(expected, actual, expected_name="expected"):
    """Lines describing how actual differs from expected (both bytes); empty if equal."""
    offset = first_difference(expected, actual)
    if offset is None:
        return []
    exp_segs, exp_err = annotate(expected)
    act_segs, act_err = annotate(actual)
    lines = [f"first difference at byte offset {offset}: {expected_name} path {path_at(exp_segs, offset)}, "
             f"actual path {path_at(act_segs, offset)}"]
    lines.append(f"{expected_name} bytes ({len(expected)}): {_clip(expected.hex())}")
    lines += annotated(expected, exp_segs, offset)
    lines.append(f"actual bytes ({len(actual)}): {_clip(actual.hex())}")
    lines += annotated(actual, act_segs, offset)
    return lines


def annotated(data, segments=None, focus=None):
    """Annotated hex lines, one per labelled byte range, around the segment holding focus ('>' marks it)."""
    if segments is None:
        segments, _ = annotate(data)
    if not segments:
        return ["    (no bytes)"]
    at = 0
    if focus is not None:
        at = next((i for i, s in enumerate(segments) if s.start <= focus < s.end), len(segments))
    lo, hi = max(0, at - CONTEXT_SEGMENTS), min(len(segments), at + CONTEXT_SEGMENTS + 1)
    lines = [f"    ... {lo} earlier ranges"] if lo else []
    shown = {}
    for i in range(lo, hi):
        raw = data[segments[i].start:segments[i].end]
        shown[i] = " ".join(f"{b:02x}" for b in raw[:MAX_LINE_BYTES]) + (" ..." if len(raw) > MAX_LINE_BYTES else "")
    width = max(len(text) for text in shown.values())
    for i in range(lo, hi):
        seg = segments[i]
        mark = ">" if focus is not None and i == at else " "
        lines.append(f"  {mark} {seg.start:>5}  {shown[i]:<{width}}  {seg.path}  {seg.note}")
    if hi < len(segments):
        lines.append(f"    ... {len(segments) - hi} later ranges")
    if focus is not None and at == len(segments):
        lines.append(f"  > {focus:>5}  (end of bytes)")
    return lines


def compact(value, limit=MAX_JSON):
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} chars)"


def _clip(text, limit=200):
    return text if len(text) <= limit else text[:limit] + "..."
