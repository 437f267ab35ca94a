"""badges/<runner>.json: shields.io endpoint badges ({"schemaVersion": 1, "label", "message", "color"})."""

import json
from pathlib import Path

from dashboard.model import InputError
from harness.runner_config import NAME


def badge(runner):
    c = runner["counts"]
    total = sum(c.values())
    passed = c["pass"] + c["info"]
    # Coarse classes, expected failures and unclaimed ops are named on the badge: a green badge over half the suite
    # says so.
    extra = "".join(f", {c[k]} {k}" for k in ("coarse", "xfail", "unclaimed") if c.get(k))
    unmet = runner.get("unmet_requirements") or []
    if runner["start_error"]:
        message, color = "did not start", "red"
    elif runner["failing"]:
        message = f"{runner['failing']} failing of {total}"
        if unmet:
            message += f", missing {', '.join(unmet)}"
        color = "red"
    elif runner["nothing_checked"]:
        message, color = f"nothing checked, {c['unclaimed']} unclaimed", "lightgrey"
    elif extra:
        message, color = f"{passed}/{total} pass{extra}", "yellowgreen"
    else:
        message, color = f"{passed}/{total} pass", "brightgreen"
    return {"schemaVersion": 1, "label": f"{runner['name']} conformance", "message": message, "color": color}


def write(data, out_dir):
    folder = Path(out_dir) / "badges"
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for r in data["runners"]:
        if not NAME.fullmatch(r["name"]):    # a report is input: its names must not climb out of badges/
            raise InputError(f"runner name {r['name']!r} is not a runner name (^[a-z0-9][a-z0-9_-]*$); no badge written")
        path = folder / f"{r['name']}.json"
        path.write_text(json.dumps(badge(r)) + "\n", encoding="utf-8")
        paths.append(path)
    return paths
