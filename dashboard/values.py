"""Typed values, cut down so that a 65,536-item array or a megabyte string stays a few kilobytes on the page."""

MAX_ITEMS = 24      # items / entries kept per container
MAX_TEXT = 300      # characters kept of a str value, hex digits of a bin / ext
MAX_DEPTH = 40      # nesting kept (the depth vectors go to 600)


def clip(value, depth=0):
    if isinstance(value, list):
        return [clip(v, depth) for v in value[:MAX_ITEMS]] + (
            [{"type": "clipped", "count": len(value) - MAX_ITEMS}] if len(value) > MAX_ITEMS else [])
    if not isinstance(value, dict):
        return value
    if depth >= MAX_DEPTH and value.get("type") in ("array", "map"):
        return {"type": "clipped", "count": 1, "why": f"nested deeper than {MAX_DEPTH}"}
    out = dict(value)
    if "items" in value:
        out["items"] = clip(value["items"], depth + 1)
    if "entries" in value:
        entries = value["entries"]
        out["entries"] = [[clip(k, depth + 1), clip(v, depth + 1)] for k, v in entries[:MAX_ITEMS]]
        if len(entries) > MAX_ITEMS:
            out["clipped"] = len(entries) - MAX_ITEMS
    for key in ("value", "hex"):
        text = value.get(key)
        if isinstance(text, str) and len(text) > MAX_TEXT:
            out[key] = text[:MAX_TEXT]
            out["clipped_chars"] = len(text)
    return out
