"""node.html: the node run's verdicts (harness/node_run.py report.json) as one static page: a table per driver,
then each case's verdict with its diagnosis and the wire log, frame by frame, each frame's bytes labelled with
its fields (harness/frame_annotate.py lines, made when the report was written). No script, no external file."""

import html
import json
import sys
from pathlib import Path

STYLE = """body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}table{border-collapse:collapse}
td,th{border:1px solid #ccc;padding:2px 8px;text-align:left}.pass{color:#176317}.fail{color:#a31515;font-weight:bold}
.unclaimed{color:#777}pre{background:#f6f6f6;padding:6px;overflow-x:auto;font-size:12px}
.client{border-left:4px solid #3465a4;margin:2px 0;padding-left:6px}.node{border-left:4px solid #cc7a00;margin:2px 0;
padding-left:6px}summary{cursor:pointer}"""


def e(text):
    return html.escape(str(text), quote=True)


def summary_table(report):
    rows = ["<table><tr><th>driver</th><th>pass</th><th>fail</th><th>expected fail</th><th>unclaimed</th>"
            "<th>unexpected</th></tr>"]
    for name, s in report["drivers"].items():
        rows.append(f"<tr><td>{e(name)}</td><td class=pass>{s['pass']}</td><td class=fail>{s['fail']}</td>"
                    f"<td>{s['fail_expected']}</td><td class=unclaimed>{s['unclaimed']}</td>"
                    f"<td>{e(', '.join(s['unexpected']) or 'none')}</td></tr>")
    rows.append("</table>")
    return "".join(rows)


def section(report, href="node.html"):
    """The dashboard's section for a node run: the drivers' counts and a link to the wire-log page."""
    return (f'<section id="node"><h2>Node cases (the protocol over time)</h2><p class="hint">{report["cases"]} cases, '
            f'spec.md 11.9; run {"complete" if report["complete"] else e(report["ended"])}. Each case\'s verdict, '
            f'diagnosis and wire log, frame by frame: <a href="{e(href)}">{e(href)}</a>.</p>'
            f'<div class="scroll">{summary_table(report)}</div></section>')


def render(report):
    out = [f"<!doctype html><html><head><meta charset='utf-8'><title>Node cases</title><style>{STYLE}</style>"
           f"</head><body><h1>The protocol over time: node cases</h1>",
           f"<p>{report['cases']} cases; run {'complete' if report['complete'] else e(report['ended'])}, "
           f"{report['seconds']} s. Rules: spec.md 11.9. A failed case shows its diagnosis and the wire log: "
           f"&lt; client to node, &gt; node to client, times from the case's start.</p>",
           summary_table(report)]
    for name in report["drivers"]:
        out.append(f"<h2>{e(name)}</h2>")
        for v in (v for v in report["verdicts"] if v["driver"] == name):
            out.append(f"<details id='{e(name)}.{e(v['case'])}'><summary><span class={v['verdict']}>{v['verdict']}"
                       f"</span> {e(v['case'])} <small>({e(', '.join(v['rules']))}; {v['duration_ms']:.0f} ms)"
                       f"{' expected: ' + e(v['expected_failure']) if v['expected_failure'] else ''}</small> "
                       f"{e(v['detail'][:200])}</summary>")
            out.append(f"<p>{e(v['description'])}</p><p>expected: <code>{e(json.dumps(v['expected_outcome']))}</code>"
                       f"<br>reported: <code>{e(json.dumps(v['outcome']))}</code></p>")
            if v["diagnosis"]:
                out.append(f"<pre>{e(chr(10).join(v['diagnosis']))}</pre>")
            for w in v["wire"]:
                side = "client" if w["from"] == "client" else "node"
                arrow = "&lt;" if side == "client" else "&gt;"
                body = e("\n".join(w["lines"])) if w["lines"] else e(w["hex"][:512])
                out.append(f"<div class={side}>{arrow} {w['t_ms']:.1f} ms <b>{e(w['kind'])}</b> {w['length']} bytes "
                           f"{e(w['note'])}" + (f"<pre>{body}</pre>" if body else "") + "</div>")
            if v["stderr_tail"]:
                out.append(f"<details><summary>driver stderr (tail)</summary><pre>{e(v['stderr_tail'])}</pre></details>")
            out.append("</details>")
    out.append("</body></html>\n")
    return "".join(out)


if __name__ == "__main__":      # python3 -m dashboard.node_page out/node/report.json > node.html
    sys.stdout.write(render(json.loads(Path(sys.argv[1]).read_text())))
