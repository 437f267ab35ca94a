"""dashboard.html: template.html with page.css, page.js and the page data inlined (one file, no network)."""

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
# Inside <script>, '</script' ends the element and '<!--' followed by '<script' makes the parser swallow what
# comes after (the page's own code); '&' starts references in some contexts. JSON lets every one of them be
# written as a \uXXXX escape (they only occur inside strings), so the data holds no '<', '>' or '&' at all.
_SCRIPT_SAFE = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026"})


def render(data):
    template = (HERE / "template.html").read_text(encoding="utf-8")
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":")).translate(_SCRIPT_SAFE)
    parts = {"/*CSS*/": (HERE / "page.css").read_text(encoding="utf-8"),
             "/*JS*/": (HERE / "page.js").read_text(encoding="utf-8"),
             "/*DATA*/": payload}
    for marker, text in parts.items():
        assert template.count(marker) == 1, marker
        before, after = template.split(marker)
        template = before + text + after
    return template
