"""dashboard.html: template.html with page.css, page.js and the page data inlined (one file, no network)."""

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent


def render(data):
    template = (HERE / "template.html").read_text(encoding="utf-8")
    # '</' inside a <script> would end it; '<\/' is the same JSON text.
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")
    parts = {"/*CSS*/": (HERE / "page.css").read_text(encoding="utf-8"),
             "/*JS*/": (HERE / "page.js").read_text(encoding="utf-8"),
             "/*DATA*/": payload}
    for marker, text in parts.items():
        assert template.count(marker) == 1, marker
        before, after = template.split(marker)
        template = before + text + after
    return template
