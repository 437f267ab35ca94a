"""python3 -m dashboard --report out/report.json --corpus vectors --out out/
writes out/dashboard.html, out/summary.md and out/badges/<runner>.json from the report of the last run, and
out/node.html (the node cases' verdicts and wire logs, dashboard/node_page.py) when out/node/report.json exists."""

import argparse
import sys
from pathlib import Path

from dashboard import badges, model, node_page, official, page, summary
from harness import threads



def parser():
    p = argparse.ArgumentParser(prog="python3 -m dashboard", description=__doc__.splitlines()[0])
    p.add_argument("--report", default="out/report.json", help="the harness report (default out/report.json)")
    p.add_argument("--corpus", default=str(model.REPO / "vectors"), help="corpus directory or file (vectors/)")
    p.add_argument("--registry", default=str(model.REPO / "schema" / "registry.json"),
                   help="the registry with the spec rules (schema/registry.json)")
    p.add_argument("--out", default="out", help="output directory (default out/)")
    p.add_argument("--official", metavar="DIR",
                   help="add the official clients' section from DIR/<ref>/report.json and the runners' "
                        "expected-failures-<ref>.txt (dashboard/official.py; e.g. out/official)")
    p.add_argument("--runners-dir", default=str(model.REPO / "runners"),
                   help="where the official runners' expected-failures-<ref>.txt live (default runners/)")
    p.add_argument("--node-report", default=None,
                   help="the node run's report (default: node/report.json next to --report, when it exists)")
    p.add_argument("--dashboard-url", default="dashboard.html",
                   help="where summary.md links point (e.g. the URL of the uploaded dashboard)")
    return p


def run(args):
    report = model.read_report(args.report)
    registry = model._read_json(args.registry, "registry")
    data = model.build(report, model.read_corpus(args.corpus), registry)
    if args.official:
        data["official"] = official.build(args.official, args.runners_dir, read_report=model.read_report,
                                          rule_ids=[r["id"] for r in registry.get("rules", [])])
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    node_report = Path(args.node_report) if args.node_report else Path(args.report).parent / "node" / "report.json"
    node = model._read_json(str(node_report), "node report") if node_report.exists() else None
    html = page.render(data, node_page.section(node) if node else "")
    (out / "dashboard.html").write_text(html, encoding="utf-8")
    (out / "summary.md").write_text(summary.render(data, args.dashboard_url), encoding="utf-8")
    badge_paths = badges.write(data, out)
    if node:
        (out / "node.html").write_text(node_page.render(node), encoding="utf-8")
        print(f"dashboard: wrote {out / 'node.html'} from {node_report}", file=sys.stderr)
    print(f"dashboard: wrote {out / 'dashboard.html'} ({len(html.encode()) / 1e6:.1f} MB), {out / 'summary.md'}, "
          f"{len(badge_paths)} badge(s) in {out / 'badges'}", file=sys.stderr)


def main(argv=None):
    args = parser().parse_args(argv)
    box = []

    def work():
        sys.setrecursionlimit(max(sys.getrecursionlimit(), 20000))
        try:
            run(args)
            box.append(0)
        except model.InputError as e:
            print(f"dashboard: {e}", file=sys.stderr)
            box.append(2)

    threads.run_all([work])   # the corpus nests values 600 deep: json and the clipper recurse through them
    return box[0] if box else 3


if __name__ == "__main__":
    sys.exit(main())
