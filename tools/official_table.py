#!/usr/bin/python3
"""The official clients' table (README section "The official clients"), from the runs' reports and the runners'
expected-failures files; the logic is dashboard/official.py's, the cause-header format docs/official-clients.md's.

  python3 tools/official_table.py                       print the README block (Markdown)
  python3 tools/official_table.py --readme README.md    write it between README's official-clients markers
  python3 tools/official_table.py --check               check every cause header and entry; exit 1 on a problem

Reports: <--official>/<ref>/report.json (default out/official/<ref>/, as `python3 -m harness verify --runners
ignite-java,ignite-cpp,ignite-dotnet --out out/official/<ref>` writes them); a ref without one reads 'not run'.
Exit status: 0, 1 (--check found problems; without --check they are printed on stderr but do not fail), 2 for
unusable input (an unreadable report, a README without the markers)."""

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from dashboard import official  # noqa: E402
from dashboard.model import InputError  # noqa: E402


def parser():
    p = argparse.ArgumentParser(prog="python3 tools/official_table.py", description=__doc__.splitlines()[0])
    p.add_argument("--official", default=str(REPO / "out" / "official"),
                   help="the directory of the per-ref runs: <DIR>/<ref>/report.json (default out/official)")
    p.add_argument("--runners-dir", default=str(REPO / "runners"),
                   help="where runners/<runner>/expected-failures-<ref>.txt live (default runners/)")
    p.add_argument("--runners", default=",".join(official.RUNNERS), help="comma-separated official runners")
    p.add_argument("--refs", default=",".join(official.REFS), help="comma-separated Ignite refs (3.0.0,3.1.0,main)")
    p.add_argument("--spec", default=str(REPO / "spec.md"), help="spec.md, for the rule anchors")
    p.add_argument("--registry", default=str(REPO / "schema" / "registry.json"), help="for the known rule ids")
    p.add_argument("--readme", help="write the block into this file between its official-clients markers")
    p.add_argument("--check", action="store_true", help="exit 1 when a cause header or entry has a problem")
    return p


def main(argv=None, stdout=None, stderr=None):
    stdout, stderr = stdout or sys.stdout, stderr or sys.stderr
    args = parser().parse_args(argv)
    refs = [r for r in args.refs.split(",") if r]
    unknown = [r for r in refs if r not in official.COMMITS]
    if unknown:
        print(f"official_table: unknown ref(s) {', '.join(unknown)} (known: {', '.join(official.REFS)})", file=stderr)
        return 2
    try:
        rule_ids = [r["id"] for r in json.loads(Path(args.registry).read_text(encoding="utf-8"))["rules"]]
        summary = official.build(args.official, args.runners_dir, [r for r in args.runners.split(",") if r], refs,
                                 rule_ids=rule_ids)
        anchors = official.spec_anchors(Path(args.spec).read_text(encoding="utf-8"))
    except (InputError, OSError, ValueError, KeyError) as e:
        print(f"official_table: {e}", file=stderr)
        return 2
    for problem in summary["problems"]:
        print(f"official_table: {problem}", file=stderr)
    block = official.markdown(summary, anchors)
    if args.readme:
        path = Path(args.readme)
        try:
            path.write_text(official.replace_block(path.read_text(encoding="utf-8"), block), encoding="utf-8")
        except (OSError, ValueError) as e:
            print(f"official_table: {path}: {e}", file=stderr)
            return 2
        print(f"official_table: wrote the official clients' table into {path}", file=stderr)
    elif not args.check:
        stdout.write(block)
    if args.check:
        checked = sum(1 for r in summary["runners"] for ref in refs
                      if official.listing(args.runners_dir, r, ref).exists())
        print(f"official_table: {checked} expected-failures file(s) checked, {len(summary['problems'])} problem(s)",
              file=stderr)
        return 1 if summary["problems"] else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
