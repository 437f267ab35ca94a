"""dashboard.html: template.html with page.css, page.js and the page data inlined (one file, no network).

The data is gzip-compressed and base64-encoded (page.js inflates it with the browser's DecompressionStream): a
run's verdicts and annotated bytes repeat themselves, and compressed the page is a few MB instead of tens. The
inflated text is one JSON line for everything the page draws at once (runners, matrix, vector list, rules, ...)
followed by one JSON line per vector with its detail (bytes, values, results), in the order of the list, parsed
only when that vector is opened. Base64 holds no '<', '>' or '&', so nothing in the data can end its <script>.
"""

import base64
import gzip
import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
# What the vector list and its filters need of each vector; the rest of a vector is its detail line.
ROW = ("id", "family", "kind", "era", "level", "state")


def _json(value):
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def payload(data):
    """The page data as page.js reads it: base64 of gzip of the head line and one detail line per vector."""
    head = {**data, "vectors": [{k: v[k] for k in ROW} for v in data["vectors"]]}
    lines = [_json(head)] + [_json({k: x for k, x in v.items() if k not in ROW}) for v in data["vectors"]]
    packed = gzip.compress("\n".join(lines).encode("utf-8"), compresslevel=9, mtime=0)    # mtime 0: reproducible
    return base64.b64encode(packed).decode("ascii")


def unpack(text):
    """payload()'s inverse: the page data with every vector whole (for tests and tools reading a dashboard)."""
    head, *details = gzip.decompress(base64.b64decode(text)).decode("utf-8").split("\n")
    data = json.loads(head)
    data["vectors"] = [{**row, **json.loads(line)} for row, line in zip(data["vectors"], details)]
    return data


def render(data, node_section=""):
    """The page; node_section: the node cases' section (dashboard/node_page.section), placed after Versions."""
    template = (HERE / "template.html").read_text(encoding="utf-8").replace("<!--NODE-->", node_section)
    parts = {"/*CSS*/": (HERE / "page.css").read_text(encoding="utf-8"),
             "/*JS*/": (HERE / "page.js").read_text(encoding="utf-8"),
             "/*DATA*/": payload(data)}
    for marker, text in parts.items():
        assert template.count(marker) == 1, marker
        before, after = template.split(marker)
        template = before + text + after
    return template
