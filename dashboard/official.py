"""The official clients' summary, in one place for the README and the dashboard: per official runner and Ignite ref,
its verdict counts from <official>/<ref>/report.json (a `harness verify --runners ignite-java,ignite-cpp,
ignite-dotnet --out out/official/<ref>` run), and its deviations by cause, read from the cause headers of
runners/<runner>/expected-failures-<ref>.txt. The header format is docs/official-clients.md's:

    ## cause: <title> | rule: <RULE-ID>[, ...] | upstream: <path>:<line>[-<line>]@<ref>[, ...] | fixed-on-main: yes|no|n/a

Every entry below a header (up to the next one) is that cause's; an xfail verdict is counted under the cause of the
entry that listed it (its report record's `expectation`, file:line). tools/official_table.py is the command line:
it prints or writes the README block and checks the headers; `python3 -m dashboard --official DIR` adds the
section to the page."""

import re
from dataclasses import dataclass, field
from pathlib import Path

from dashboard.status import FAILING
from harness import expectations

REFS = ("3.0.0", "3.1.0", "main")
# The apache/ignite-3 commits of the refs (../shared/upstream/README.md; spec.md section 11 cites them short).
COMMITS = {"3.0.0": "947054a91486eb355a4c067566f4aa15a7044203",
           "3.1.0": "0ed2eab1ff1b4b9db351b07356f9f669c7a5daaa",
           "main": "d46ac208937b32fbebc3e5d615f36eea28465253"}
RUNNERS = ("ignite-java", "ignite-cpp", "ignite-dotnet")
UPSTREAM_URL = "https://github.com/apache/ignite-3/blob/{commit}/{path}#L{lines}"
FIXED = re.compile(r"^(yes( [0-9a-f]{7,40})?|no|n/a)$")
RULE = re.compile(r"^[A-Z][A-Z0-9]*(-[A-Z0-9]+)+$")
UPSTREAM = re.compile(r"^(?P<path>[A-Za-z0-9_./+-]+):(?P<start>[1-9][0-9]*)(-(?P<end>[1-9][0-9]*))?"
                      r"@(?P<ref>3\.0\.0|3\.1\.0|main|[0-9a-f]{7,40})$")
HEADER = "## cause:"
KEYS = ("rule", "upstream", "fixed-on-main")
NO_CAUSE = "(no cause header)"
BEGIN = "<!-- official-clients:begin (written by python3 tools/official_table.py --readme README.md) -->"
END = "<!-- official-clients:end -->"


@dataclass
class Upstream:
    path: str
    start: int
    end: int
    ref: str

    @property
    def text(self):
        lines = f"{self.start}-{self.end}" if self.end != self.start else str(self.start)
        return f"{self.path}:{lines}@{self.ref}"

    @property
    def url(self):
        lines = f"{self.start}-L{self.end}" if self.end != self.start else str(self.start)
        return UPSTREAM_URL.format(commit=COMMITS.get(self.ref, self.ref), path=self.path, lines=lines)


@dataclass
class Cause:
    title: str
    rules: list
    upstream: list          # [Upstream]
    fixed: str              # yes | yes <commit> | no | n/a
    where: str              # file:line of the header
    notes: list = field(default_factory=list)      # the '#' comment lines after the header, before its entries
    entries: list = field(default_factory=list)    # [expectations.Entry]


def parse_header(text, where):
    """(Cause, None) for a '## cause:' line, or (None, the problem)."""
    parts = [p.strip() for p in text[len(HEADER):].split(" | ")]
    title, fields = parts[0], {}
    if not title:
        return None, f"{where}: a cause header needs a title: '{HEADER} <title> | rule: ... | upstream: ... | " \
                     f"fixed-on-main: ...'"
    for part in parts[1:]:
        key, sep, value = part.partition(":")
        key, value = key.strip(), value.strip()
        if not sep or key not in KEYS:
            return None, f"{where}: '{part}' is not one of {', '.join(k + ': ...' for k in KEYS)}"
        if key in fields:
            return None, f"{where}: '{key}' given twice"
        fields[key] = value
    missing = [k for k in KEYS if k not in fields]
    if missing:
        return None, f"{where}: cause '{title}' lacks {', '.join(missing)} (docs/official-clients.md)"
    rules = [r.strip() for r in fields["rule"].split(",")]
    if rules != ["none"] and not all(RULE.match(r) for r in rules):
        return None, f"{where}: rule '{fields['rule']}': spec rule ids (BT-OFFSETS, MP-INT-CANON), comma-separated, " \
                     f"or 'none'"
    upstream = []
    for item in fields["upstream"].split(","):
        m = UPSTREAM.match(item.strip())
        if not m:
            return None, f"{where}: upstream '{item.strip()}': expected <path>:<line>[-<line>]@<ref> (ref 3.0.0, " \
                         f"3.1.0, main or a commit)"
        start = int(m["start"])
        end = int(m["end"] or start)
        if end < start:
            return None, f"{where}: upstream '{item.strip()}': the line range ends before it starts"
        upstream.append(Upstream(m["path"], start, end, m["ref"]))
    if not FIXED.match(fields["fixed-on-main"]):
        return None, f"{where}: fixed-on-main '{fields['fixed-on-main']}': expected yes, yes <commit>, no or n/a"
    return Cause(title, [] if rules == ["none"] else rules, upstream, fields["fixed-on-main"], where), None


def parse_causes(path):
    """(causes, problems) of an expected-failures file; causes in file order, a NO_CAUSE one first when entries stand
    before every header. [] for a file that does not exist."""
    path = Path(path)
    if not path.exists():
        return [], []
    problems = []
    try:
        entries = expectations.parse(path)
    except expectations.ExpectationError as e:
        return [], [str(e)]
    headers = []
    with open(path, encoding="utf-8") as f:
        current = None
        for n, raw in enumerate(f, 1):
            text = raw.strip()
            if text.startswith(HEADER):
                cause, problem = parse_header(text, f"{path}:{n}")
                if problem:
                    problems.append(problem)
                    current = None
                    continue
                headers.append((n, cause))
                current = cause
            elif re.match(r"^#+\s*cause\b", text, re.I):
                problems.append(f"{path}:{n}: looks like a cause header but does not start with '{HEADER} '")
            elif text.startswith("#") and current is not None:
                current.notes.append(text.lstrip("#").strip())
            elif text and not text.startswith("#"):
                current = None      # notes end at the first entry
    causes = [c for _, c in headers]
    loose = Cause(NO_CAUSE, [], [], "n/a", str(path))
    for e in entries:
        owner = next((c for n, c in reversed(headers) if n < e.line_no), None)
        (owner or loose).entries.append(e)
    if loose.entries:
        problems.append(f"{path}:{loose.entries[0].line_no}: {len(loose.entries)} entr"
                        f"{'ies stand' if len(loose.entries) > 1 else 'y stands'} before any '{HEADER}' header")
        causes.insert(0, loose)
    problems += [f"{c.where}: cause '{c.title}' has no entry" for c in causes if not c.entries]
    return causes, problems


def listing(runners_dir, runner, ref):
    return Path(runners_dir) / runner / f"expected-failures-{ref}.txt"


def _line_of(record, file):
    """The line of file that listed an xfail record (its expectation '<path>:<line>: <reason>', the path as the run
    was given it, relative or not), or None when another file listed it."""
    expectation = record.get("expectation") or ""
    for m in re.finditer(r":(\d+): ", expectation):
        if Path(expectation[:m.start()]).name == Path(file).name:
            return int(m.group(1))
    return None


def _row(runner, ref, report, where):
    """A (runner, ref) row of the table from its report, or a 'not run' row."""
    row = {"runner": runner, "ref": ref, "commit": COMMITS[ref][:11], "run": False, "library_version": None,
           "counts": {}, "report": where}
    info = next((r for r in (report or {}).get("runners", ()) if r.get("name") == runner), None)
    if info is None:
        return row, None
    c = info.get("counts", {})
    unexpected = (sum(c.get(k, 0) for k in FAILING) + len(info.get("expectations", {}).get("stale", []))
                  + len(info.get("unmet_requirements") or []))
    row.update(run=True, library_version=info.get("library_version"), start_error=info.get("start_error"),
               counts={"pass": c.get("pass", 0), "coarse": c.get("coarse", 0), "xfail": c.get("xfail", 0),
                       "info": c.get("info", 0), "unclaimed": c.get("unclaimed", 0), "unexpected": unexpected})
    return row, info


def build(official_dir, runners_dir, runners=RUNNERS, refs=REFS, read_report=None, rule_ids=None):
    """The summary: {"refs", "rows": [per (runner, ref)], "causes": {runner: [cause rows]}, "problems": [...]}.
    read_report(path) -> the report or raises (dashboard.model.read_report); rule_ids: the registry's, to flag
    unknown ones."""
    if read_report is None:
        from dashboard.model import read_report
    reports, problems = {}, []
    for ref in refs:
        path = Path(official_dir) / ref / "report.json"
        reports[ref] = (read_report(path), str(path)) if path.exists() else (None, str(path))
    rows, causes_of = [], {}
    for runner in runners:
        merged = {}         # title -> cause row, in first-seen order
        for ref in refs:
            report, where = reports[ref]
            row, info = _row(runner, ref, report, where)
            rows.append(row)
            file = listing(runners_dir, runner, ref)
            causes, found = parse_causes(file)
            problems += found
            if info is not None and causes:
                judged_with = info.get("expectations", {}).get("file", "")
                if Path(judged_with).name != file.name:
                    problems.append(f"{where}: {runner} was judged with {judged_with}, not {file.name}")
            by_line = {e.line_no: c for c in causes for e in c.entries}
            counted = {}
            if info is not None:
                for rec in report["verdicts"]:
                    if rec["runner"] == runner and rec["verdict"] == "xfail":
                        cause = by_line.get(_line_of(rec, str(file)))
                        key = cause.title if cause else NO_CAUSE
                        counted[key] = counted.get(key, 0) + 1
            for c in causes:
                m = merged.get(c.title)
                if m is None:
                    m = merged[c.title] = {"title": c.title, "rules": list(c.rules), "upstream": [], "fixed": c.fixed,
                                           "notes": c.notes, "by_ref": {}}
                elif m["fixed"] != c.fixed:
                    problems.append(f"{c.where}: cause '{c.title}' says fixed-on-main {c.fixed}, another ref's "
                                    f"file says {m['fixed']}")
                m["rules"] += [r for r in c.rules if r not in m["rules"]]
                m["upstream"] += [{"text": u.text, "url": u.url} for u in c.upstream
                                  if u.text not in [x["text"] for x in m["upstream"]]]
                m["by_ref"][ref] = {"entries": len(c.entries), "verdicts": counted.pop(c.title, 0) if info else None}
            if counted:     # xfail verdicts whose listing line is under no cause of this file
                m = merged.setdefault(NO_CAUSE, {"title": NO_CAUSE, "rules": [], "upstream": [], "fixed": "n/a",
                                                 "notes": [], "by_ref": {}})
                m["by_ref"].setdefault(ref, {"entries": 0, "verdicts": 0})["verdicts"] = sum(counted.values())
        causes_of[runner] = list(merged.values())
    if rule_ids is not None:
        known = set(rule_ids)
        for runner, causes in causes_of.items():
            for c in causes:
                problems += [f"{runner}: cause '{c['title']}': rule {r} is not in schema/registry.json"
                             for r in c["rules"] if r not in known]
    return {"refs": list(refs), "runners": list(runners), "rows": rows, "causes": causes_of, "problems": problems}


# ---------- Markdown (README) ----------

def spec_anchors(spec_text):
    """{rule id: the GitHub anchor of the spec.md heading it is defined under}."""
    anchors, heading, seen = {}, None, {}
    for line in spec_text.splitlines():
        m = re.match(r"^#{1,6} (.*)$", line)
        if m:
            base = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
            n = seen.get(base, 0)
            seen[base] = n + 1
            heading = base if n == 0 else f"{base}-{n}"
            continue
        for rule in re.findall(r"\*\*([A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+)\*\*", line):
            if heading and rule not in anchors:
                anchors[rule] = heading
    return anchors


def _cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def _count(row, key):
    return str(row["counts"][key]) if row["run"] else "-"


def markdown(summary, anchors, spec_link="spec.md"):
    """The README block: the per-client, per-ref counts, then each client's deviations by cause."""
    refs = summary["refs"]
    lines = [BEGIN, "",
             "| client | ref | version | pass | coarse | fail (xfail) | unclaimed | info | unexpected |",
             "|---|---|---|--:|--:|--:|--:|--:|--:|"]
    for row in summary["rows"]:
        version = _cell(row["library_version"]) if row["run"] else "not run"
        lines.append(f"| {row['runner']} | {row['ref']} ({row['commit']}) | {version} | {_count(row, 'pass')} | "
                     f"{_count(row, 'coarse')} | {_count(row, 'xfail')} | {_count(row, 'unclaimed')} | "
                     f"{_count(row, 'info')} | {_count(row, 'unexpected')} |")
    lines += ["", "`fail (xfail)`: verdicts that differ from the corpus, each listed in the runner's "
              "`expected-failures-<ref>.txt` under its cause; `coarse`: rejected with the error-class family the "
              "client's exception names (runners/PROTOCOL.md); `unexpected`: verdicts that fail the run.", ""]
    for runner in summary["runners"]:
        causes = summary["causes"].get(runner) or []
        lines += [f"Deviations of {runner} by cause (xfail verdicts per ref):", ""]
        if not causes:
            lines += ["None listed.", ""]
            continue
        lines += ["| cause | rule | upstream | fixed on main | " + " | ".join(refs) + " |",
                  "|---|---|---|---|" + "--:|" * len(refs)]
        for c in causes:
            rules = ", ".join(f"[{r}]({spec_link}#{anchors[r]})" if r in anchors else r for r in c["rules"]) or "none"
            upstream = ", ".join(f"[{_cell(u['text'])}]({u['url']})" for u in c["upstream"]) or "-"
            per_ref = []
            for ref in refs:
                x = c["by_ref"].get(ref)
                per_ref.append("-" if x is None else str(x["verdicts"]) if x["verdicts"] is not None
                               else f"not run ({x['entries']} entries)")
            lines.append(f"| {_cell(c['title'])} | {rules} | {upstream} | {_cell(c['fixed'])} | "
                         + " | ".join(per_ref) + " |")
        lines.append("")
    return "\n".join(lines + [END]) + "\n"


def replace_block(text, block):
    """text with its BEGIN..END block replaced by block (ValueError when text has no such block)."""
    start = text.find(BEGIN)
    end = text.find(END, start)
    if start < 0 or end < 0:
        raise ValueError(f"no '{BEGIN}' ... '{END}' block")
    return text[:start] + block.rstrip("\n") + text[end + len(END):]
