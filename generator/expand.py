"""A source file's vectors: Binary Tuple sources (bt-*.yaml, with a "format") in their own element notation
(bt_sources.py), the others in the MessagePack notation (sources.py). Here, so that neither imports the other back."""

from . import bt_sources, frame_sources, sources


def expand(source: dict, path: str) -> list[dict]:
    if source.get("format") == "frame":  # frame sources (frame-*.yaml): messages as named fields
        return frame_sources.expand(source, path)
    if "format" in source:  # Binary Tuple sources (bt-*.yaml): their own element notation
        return bt_sources.expand(source, path)
    return sources.expand(source, path)
