"""badges/<runner>.json: shields.io endpoint badges ({"schemaVersion": 1, "label", "message", "color"})."""

import json
from pathlib import Path


def badge(runner):
    c = runner["counts"]
    total = sum(c.values())
    ok = c["pass"] + c["xfail"] + c["info"]
    if runner["start_error"]:
        message, color = "did not start", "red"
    elif runner["failing"]:
        message, color = f"{runner['failing']} failing of {total}", "red"
    elif c["xfail"]:
        message, color = f"{ok}/{total} pass, {c['xfail']} expected failures", "yellowgreen"
    else:
        message, color = f"{ok}/{total} pass", "brightgreen"
    return {"schemaVersion": 1, "label": f"{runner['name']} conformance", "message": message, "color": color}


def write(data, out_dir):
    folder = Path(out_dir) / "badges"
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for r in data["runners"]:
        path = folder / f"{r['name']}.json"
        path.write_text(json.dumps(badge(r)) + "\n", encoding="utf-8")
        paths.append(path)
    return paths
