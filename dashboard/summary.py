"""summary.md: a Markdown digest for a CI job summary - one row per runner, then every failing id linked into
the dashboard."""

import html
from urllib.parse import quote

from dashboard.status import FAILING

MAX_FAILING_ROWS = 100
MARK = {"pass": "✅ pass", "info": "✅ pass", "coarse": "✅ pass (some classes coarse)",
        "xfail": "✅ pass (expected failures)", "fail": "❌ fail",
        "crash": "💥 crash", "unclaimed": "✅ pass (part unclaimed)", "none": "➖ nothing ran",
        "nothing_checked": "➖ nothing checked (all unclaimed)"}


def _cell(text):
    """Runner- and corpus-supplied text as literal Markdown table text: HTML escaped (GitHub renders inline HTML
    in Markdown), table pipes and backslashes escaped, one line."""
    return html.escape(str(text), quote=False).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def vector_link(dashboard_url, vector_id):
    return f"{dashboard_url}#vector={quote(vector_id, safe='')}"


def render(data, dashboard_url="dashboard.html"):
    meta, runners = data["meta"], data["runners"]
    failing_total = meta["totals"]["failed"]
    sel = meta["selection"]
    head = "❌" if failing_total else "✅"
    unclaimed, coarse = meta["totals"].get("unclaimed"), meta["totals"].get("coarse")
    lines = [f"## {head} Ignite 3 wire-value conformance: {meta['totals']['passed']} passed"
             + (f" ({coarse} coarse: rejected with a class family the runner declares)" if coarse else "")
             + f", {failing_total} failed"
             + (f", {unclaimed} unclaimed (outside the runners' claimed capabilities)" if unclaimed else ""),
             "",
             f"Corpus {meta['corpus_version']} · harness {meta['harness_version']} · {meta['timestamp']} · "
             f"{sel['vectors']} vectors, {sel['ops']} operations per runner"
             + ("" if sel["full"] else " (a selection, not the whole corpus)")
             + f" · [dashboard]({dashboard_url})", "",
             "| runner | library | pass | coarse | info | expected failures | fail | "
             "crash / timeout / protocol / abandoned | skip / xpass | unclaimed | stale | status |",
             "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|"]
    unmet = []
    for r in runners:
        c = r["counts"]
        lib = " ".join(x for x in (r["library"], r["library_version"]) if x) or "-"
        if r["language"]:
            lib += f" ({r['language']})"
        status = MARK["fail"] if r["failing"] and r["state"] not in ("crash",) else MARK[r["state"]]
        if r["start_error"]:
            status = "💥 did not start"
        elif not r["failing"] and r["nothing_checked"]:
            status = MARK["nothing_checked"]
        lines.append("| " + " | ".join(_cell(x) for x in (
            r["name"], lib, c["pass"], c.get("coarse", 0), c["info"], c["xfail"], c["fail"],
            c["crash"] + c["timeout"] + c["protocol-error"] + c.get("abandoned", 0), c["skip"] + c["xpass"],
            c.get("unclaimed", 0),
            len(r["expectations"]["stale"]), status)) + " |")
        for requirement in r.get("unmet_requirements") or []:
            unmet.append(f"- {_cell(r['name'])}: does not claim `{requirement}` (required with --require)")

    if unmet:
        lines += ["", f"### Unmet capability requirements ({len(unmet)})", ""] + unmet
    failing = [(name, v, res) for v in data["vectors"] for name, results in v["results"].items()
               for res in results if res["verdict"] in FAILING]
    lines += ["", f"### Failing ({len(failing)})", ""]
    if not failing:
        lines.append("Nothing fails.")
    else:
        lines += ["| runner | vector | op | verdict | detail |", "|---|---|---|---|---|"]
        for name, v, res in failing[:MAX_FAILING_ROWS]:
            lines.append(f"| {_cell(name)} | [{_cell(v['id'])}]({vector_link(dashboard_url, v['id'])}) | "
                         f"{_cell(res['op'])} | {_cell(res['verdict'])} | {_cell(res['detail'])} |")
        if len(failing) > MAX_FAILING_ROWS:
            lines.append(f"\n… and {len(failing) - MAX_FAILING_ROWS} more in the [dashboard]({dashboard_url}).")
    stale = [(r["name"], s) for r in runners for s in r["expectations"]["stale"]]
    if stale:
        lines += ["", f"### Stale expected-failure entries ({len(stale)})", ""]
        lines += [f"- {_cell(name)}: {_cell(s)}" for name, s in stale]
    return "\n".join(lines) + "\n"
