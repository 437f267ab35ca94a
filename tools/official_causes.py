#!/usr/bin/python3
"""An official runner's expected-failures-<ref>.txt, written from a run's report.json and the runner's causes.yaml.

    python3 tools/official_causes.py                       every official runner and ref: out/official-raw/<ref>/report.json
    python3 tools/official_causes.py --runners ignite-cpp --refs 3.1.0
    python3 tools/official_causes.py --report R.json --runners ignite-java --refs main --out /tmp/ef.txt
    python3 tools/official_causes.py --check               compare the committed files with what the reports give

The report must come from a run WITHOUT an expected-failures file (`make official-lists` makes them; an xfail verdict
is read as its raw outcome all the same). Each failing verdict (fail, skip) of the runner goes to the FIRST cause of
runners/<runner>/causes.yaml whose matchers take it (format: docs/official-clients.md, "The causes file"); a failing
verdict no cause takes is printed and nothing is written (exit 1): a new deviation needs its cause found in the
upstream code first, never a catch-all. Crash, timeout, protocol-error and abandoned verdicts are never listed (exit 1).
Entries are exact ids, or an id glob 'prefix.*' (at a '.' boundary) where every (vector, op) of the report under it
belongs to the same cause and it matches at most 200 of them (the harness's cap, harness/expectations.py). The
upstream lines of each cause header are looked up in the ref's own tree (tools/ignite_upstream.py), so each ref's
file names its own lines. Exit status: 0; 1 (unmatched or unlistable verdicts, or --check found a difference);
2 (unusable input: a bad causes.yaml, no report, a pattern not found in the tree); 3 (no upstream source).
"""

import argparse
import bisect
import functools
import json
import re
import subprocess
import sys
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
# The listing's own glob, cap and fault verdicts: an entry this tool writes means what the harness reads.
from harness.api import FAULTS, WILDCARD_CAP as GLOB_LIMIT, compile_glob as glob_rx  # noqa: E402

RUNNERS = ("ignite-java", "ignite-cpp", "ignite-dotnet")
REFS = ("3.0.0", "3.1.0", "main")
MATCH_KEYS = {"verdict", "vector", "not_vector", "op", "not_op", "detail", "detail_re", "diagnosis", "refs"}
CAUSE_KEYS = {"title", "rules", "upstream", "fixed", "notes", "entry", "match"}
UPSTREAM_KEYS = {"file", "find", "regex", "end", "line", "refs"}


class Unusable(Exception):
    """Bad input (exit 2)."""


def _list(value):
    return [value] if isinstance(value, str) else list(value or [])


class Matcher:
    """One matcher of a cause: every condition it names must hold (lists inside a condition: any of them)."""

    def __init__(self, spec, where):
        if not isinstance(spec, dict) or not spec:
            raise Unusable(f"{where}: a matcher is a non-empty mapping")
        unknown = set(spec) - MATCH_KEYS
        if unknown:
            raise Unusable(f"{where}: unknown matcher key(s) {', '.join(sorted(unknown))} (known: {', '.join(sorted(MATCH_KEYS))})")
        self.verdict = spec.get("verdict")
        if self.verdict not in (None, "fail", "skip"):
            raise Unusable(f"{where}: verdict must be fail or skip, not {self.verdict!r}")
        self.vector = [glob_rx(g) for g in _list(spec.get("vector"))]
        self.not_vector = [glob_rx(g) for g in _list(spec.get("not_vector"))]
        self.op = [glob_rx(g) for g in _list(spec.get("op"))]
        self.not_op = [glob_rx(g) for g in _list(spec.get("not_op"))]
        self.detail = _list(spec.get("detail"))
        self.diagnosis = _list(spec.get("diagnosis"))
        self.refs = _list(spec.get("refs"))
        if any(r not in REFS for r in self.refs):
            raise Unusable(f"{where}: refs are {', '.join(REFS)}")
        try:
            self.detail_re = re.compile(spec["detail_re"]) if "detail_re" in spec else None
        except re.error as e:
            raise Unusable(f"{where}: detail_re: {e}") from None

    def __call__(self, v, ref):
        detail = v.get("detail") or ""
        return ((not self.refs or ref in self.refs)
                and (self.verdict is None or v["verdict"] == self.verdict)
                and (not self.vector or any(r.match(v["vector"]) for r in self.vector))
                and not any(r.match(v["vector"]) for r in self.not_vector)
                and (not self.op or any(r.match(v["op"]) for r in self.op))
                and not any(r.match(v["op"]) for r in self.not_op)
                and (not self.detail or any(s in detail for s in self.detail))
                and (self.detail_re is None or self.detail_re.search(detail) is not None)
                and (not self.diagnosis or any(s in line for s in self.diagnosis for line in v.get("diagnosis") or [])))


def load_causes(path):
    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as e:
        raise Unusable(f"{path}: {e}") from None
    if not isinstance(data, dict) or not isinstance(data.get("causes"), list):
        raise Unusable(f"{path}: expected a mapping with a 'causes' list")
    causes, titles = [], set()
    for n, c in enumerate(data["causes"], 1):
        where = f"{path}: cause {n}"
        if not isinstance(c, dict):
            raise Unusable(f"{where}: a cause is a mapping")
        unknown = set(c) - CAUSE_KEYS
        missing = {"title", "rules", "upstream", "fixed", "match"} - set(c)
        if unknown or missing:
            raise Unusable(f"{where}: unknown key(s) {sorted(unknown)}, missing {sorted(missing)}")
        title = c["title"]
        where = f"{path}: cause {title!r}"
        if not isinstance(title, str) or "|" in title or title in titles:
            raise Unusable(f"{where}: a title is a unique string without '|'")
        titles.add(title)
        if str(c["fixed"]).split(" ")[0] not in ("yes", "no", "n/a"):
            raise Unusable(f"{where}: fixed must be 'yes', 'yes <commit>', 'no' or n/a (quoted: YAML reads a bare yes/no as a boolean)")
        ups = c["upstream"]
        if not isinstance(ups, list) or not ups or not all(isinstance(u, dict) and "file" in u for u in ups):
            raise Unusable(f"{where}: upstream is a non-empty list of {{file: ..., find|regex|line: ...}}")
        for u in ups:
            if set(u) - UPSTREAM_KEYS or sum(k in u for k in ("find", "regex", "line")) != 1:
                raise Unusable(f"{where}: an upstream entry has file and one of find, regex, line (and maybe end, refs)")
        matchers = c["match"] if isinstance(c["match"], list) else [c["match"]]
        causes.append(dict(title=title, rules=_list(c["rules"]) or ["none"], upstream=ups, fixed=str(c["fixed"]),
                           notes=_list(c.get("notes")), entry=c.get("entry"),
                           match=[Matcher(m, f"{where}: matcher {i}") for i, m in enumerate(matchers, 1)]))
    return dict(preamble=_list(data.get("preamble")), causes=causes)


def _per_ref(value, ref, where):
    if isinstance(value, dict):
        if ref not in value:
            raise Unusable(f"{where}: no value for ref {ref}")
        return value[ref]
    return value


def upstream_place(tree, ref, spec, where):
    """'path:line[-line]@ref' of one upstream entry in the ref's tree (tree(): its path, asked only when a pattern
    must be looked up), or None when the entry's refs leave out ref."""
    if "refs" in spec and ref not in _list(spec["refs"]):
        return None
    path = _per_ref(spec["file"], ref, where)
    if "line" in spec:
        return f"{path}:{_per_ref(spec['line'], ref, where)}@{ref}"
    try:
        text = (Path(tree()) / path).read_text(encoding="utf-8")
    except OSError as e:
        raise Unusable(f"{where}: {path} at {ref}: {e}") from None
    if "find" in spec:
        at = text.find(spec["find"])
        found = at >= 0 and (at, at + len(spec["find"]))
    else:
        m = re.search(spec["regex"], text, re.M)
        found = m and (m.start(), m.end())
    if not found:
        raise Unusable(f"{where}: {spec.get('find') or spec.get('regex')!r} not found in {path} at {ref}")
    first = text.count("\n", 0, found[0]) + 1
    place = f"{path}:{first}"
    if "end" in spec:
        m = re.compile(spec["end"], re.M).search(text, found[0])
        if not m:
            raise Unusable(f"{where}: end {spec['end']!r} not found in {path} at {ref}")
        place += f"-{text.count(chr(10), 0, m.end() - 1) + 1}"
    return f"{place}@{ref}"


def short(v):
    """An entry's reason when the cause gives none: what the client did, in a few words."""
    d = re.sub(r"\s+", " ", v.get("detail") or "")
    m = re.search(r"client threw ([\w.$]+)\b.*?(?: via| at) (?:org\.apache\.ignite\.[\w.]*\.)?([\w$]+\.[\w$<>]+)\(", d)
    if v["verdict"] == "skip" and m:
        return f"skipped: {m.group(1).rsplit('.', 1)[-1]} in {m.group(2)}"
    return d.replace("runner skipped: ", "skipped: ")[:90] or v["verdict"]


def compress(vs, ids_by_op, owner, cause, reason):
    """Entries of one cause: the widest id glob 'prefix.*' whose (vector, op) pairs in the report all belong to this
    cause and number at most GLOB_LIMIT (and at least 2), else the exact id; op is always exact."""
    lines = []
    by_op = {}
    for v in vs:
        by_op.setdefault(v["op"], []).append(v)
    for op in sorted(by_op):
        ids = ids_by_op[op]
        reasons = {v["vector"]: reason(v) for v in by_op[op]}
        done = set()
        for vec in sorted(reasons):
            if vec in done:
                continue
            best = None
            parts = vec.split(".")
            for k in range(1, len(parts)):
                prefix = ".".join(parts[:k]) + "."
                lo = bisect.bisect_left(ids, prefix)
                hi = bisect.bisect_left(ids, prefix[:-1] + "/")  # '/' follows '.' in ASCII
                if hi - lo > GLOB_LIMIT:
                    continue
                under = ids[lo:hi]
                if all(owner.get((u, op)) == cause for u in under):
                    best = (prefix, under)
                    break
            if best and len(best[1]) > 1:
                prefix, under = best
                why = {reasons[u] for u in under}
                lines.append((prefix + "*", op, why.pop() if len(why) == 1 else f"{len(under)} vectors, as the cause says"))
                done.update(under)
            else:
                lines.append((vec, op, reasons[vec]))
                done.add(vec)
    return sorted(lines)


def listing(runner, ref, report, causes):
    """(None, groups, ids_by_op, owner): the failing verdicts by cause; or ([problem lines],)."""
    mine = [v for v in report.get("verdicts", []) if v.get("runner") == runner]
    if not mine:
        return [f"no verdict of {runner} in the report"],
    faults = [v for v in mine if v["verdict"] in FAULTS or v.get("outcome") in FAULTS]
    if faults:
        return [f"{len(faults)} crash/timeout/protocol-error/abandoned verdict(s) can never be listed; fix the run "
                      f"first (e.g. {faults[0]['vector']} {faults[0]['op']}: {(faults[0].get('detail') or '')[:200]})"],
    owner, groups, unmatched, ids_by_op = {}, {i: [] for i in range(len(causes))}, [], {}
    for v in mine:
        ids_by_op.setdefault(v["op"], []).append(v["vector"])
        if v["verdict"] == "xfail":
            v = dict(v, verdict=v.get("outcome", "fail"))
        if v["verdict"] not in ("fail", "skip"):
            continue
        hit = next((i for i, c in enumerate(causes) if any(m(v, ref) for m in c["match"])), None)
        if hit is None:
            unmatched.append(v)
            continue
        groups[hit].append(v)
        owner[(v["vector"], v["op"])] = hit
    if unmatched:
        return ([f"no cause for {v['vector']} {v['op']}: {v['verdict']}: {(v.get('detail') or '')[:300]}"
                       for v in unmatched[:60]]
                      + [f"{len(unmatched)} failing verdict(s) of {runner} at {ref} no cause of its causes.yaml takes; "
                         f"find each one's cause in the upstream code and add it (nothing written)"]),
    for op in ids_by_op:
        ids_by_op[op].sort()
    return None, groups, ids_by_op, owner


def render(runner, ref, report, spec, tree):
    causes = spec["causes"]
    result = listing(runner, ref, report, causes)
    if result[0] is not None:
        return None, result[0]
    _, groups, ids_by_op, owner = result
    spec.setdefault("used", set()).update(c["title"] for i, c in enumerate(causes) if groups[i])
    out = [line.format(ref=ref, runner=runner) for line in spec["preamble"]]
    out += [f"# Written by tools/official_causes.py from runners/{runner}/causes.yaml and a run's report.json",
            "# (docs/official-clients.md); each entry: vector  op  what the client did.", ""]
    for i, c in enumerate(causes):
        vs = groups[i]
        if not vs:
            continue
        where = f"runners/{runner}/causes.yaml: cause {c['title']!r}"
        places = [p for p in (upstream_place(tree, ref, u, where) for u in c["upstream"]) if p]
        if not places:
            raise Unusable(f"{where}: no upstream line applies at {ref}")
        out.append(f"## cause: {c['title']} | rule: {', '.join(c['rules'])} | upstream: {', '.join(places)} "
                   f"| fixed-on-main: {c['fixed']}")
        out += ["# " + line if line else "#" for line in c["notes"]]
        out.append(f"# {len(vs)} verdicts")
        reason = (lambda v, text=c["entry"]: text) if c["entry"] else short
        out += [f"{scope}  {op}  {why}" for scope, op, why in compress(vs, ids_by_op, owner, i, reason)]
        out.append("")
    return "\n".join(out), None


def upstream_tree(ref):
    r = subprocess.run([sys.executable, str(REPO / "tools" / "ignite_upstream.py"), "ignite", "--ref", ref],
                       capture_output=True, text=True)
    if r.returncode:
        sys.stderr.write(r.stderr)
        raise SystemExit(r.returncode)
    return r.stdout.strip()


def parser():
    p = argparse.ArgumentParser(prog="python3 tools/official_causes.py", description=__doc__.splitlines()[0])
    p.add_argument("--runners", default=",".join(RUNNERS), help="comma-separated official runners (default: all three)")
    p.add_argument("--refs", default=",".join(REFS), help="comma-separated refs (default 3.0.0,3.1.0,main)")
    p.add_argument("--raw", default=str(REPO / "out" / "official-raw"),
                   help="the runs without a listing: <RAW>/<ref>/report.json (default out/official-raw)")
    p.add_argument("--report", help="one report.json for the (single) ref given")
    p.add_argument("--runners-dir", default=str(REPO / "runners"), help="where runners/<runner>/causes.yaml live")
    p.add_argument("--out", help="the file to write (one runner and ref only; default "
                                 "<runners-dir>/<runner>/expected-failures-<ref>.txt)")
    p.add_argument("--check", action="store_true",
                   help="write nothing; exit 1 when a committed file differs from what the report gives")
    return p


def main(argv=None):
    args = parser().parse_args(argv)
    runners = [r for r in args.runners.split(",") if r]
    refs = [r for r in args.refs.split(",") if r]
    if any(r not in REFS for r in refs):
        print(f"official_causes: refs are {', '.join(REFS)}", file=sys.stderr)
        return 2
    if (args.report or args.out) and len(refs) != 1 or args.out and len(runners) != 1:
        print("official_causes: --report needs one ref, --out one runner and one ref", file=sys.stderr)
        return 2
    status = 0
    try:
        specs = {r: load_causes(Path(args.runners_dir) / r / "causes.yaml") for r in runners}
        for ref in refs:
            report_path = Path(args.report or Path(args.raw) / ref / "report.json")
            try:
                report = json.loads(report_path.read_text(encoding="utf-8"))
            except (OSError, ValueError) as e:
                raise Unusable(f"{report_path}: {e} (make it with `make official-lists`, docs/official-clients.md)") from None
            tree = functools.lru_cache(maxsize=None)(functools.partial(upstream_tree, ref))
            for runner in runners:
                text, problems = render(runner, ref, report, specs[runner], tree)
                if problems:
                    for line in problems:
                        print(f"official_causes: {runner} {ref}: {line}", file=sys.stderr)
                    status = 1
                    continue
                path = Path(args.out or Path(args.runners_dir) / runner / f"expected-failures-{ref}.txt")
                entries = sum(1 for line in text.splitlines() if line and not line.startswith("#"))
                if args.check:
                    same = path.is_file() and path.read_text(encoding="utf-8") == text
                    print(f"official_causes: {path} {'matches' if same else 'DIFFERS from'} {report_path}", file=sys.stderr)
                    status = status or (0 if same else 1)
                else:
                    path.write_text(text, encoding="utf-8")
                    print(f"official_causes: {entries} entries in {text.count(chr(10) + '## cause:')} causes -> {path}",
                          file=sys.stderr)
    except Unusable as e:
        print(f"official_causes: {e}", file=sys.stderr)
        return 2
    if status == 0 and set(refs) == set(REFS):
        for runner, spec in specs.items():
            for c in spec["causes"]:
                if c["title"] not in spec.get("used", ()):
                    print(f"official_causes: note: {runner}'s cause {c['title']!r} took no verdict at any ref "
                          f"(obsolete? then remove it from causes.yaml)", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
