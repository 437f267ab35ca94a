"""The Stryker survivors of a report (out/mutation/stryker/mutation.json) and their triage
(mutation/stryker-triage.yaml): each survivor is found by a key that stays put while code around it moves (file,
mutator, original text, replacement), with its line (and column, where one line has alike ones) as a hint to
tell apart survivors whose keys are alike.

  python3 mutation/stryker/triage.py [--stubs] [REPORT | EVENTS-DIR]
lists the survivors no triage entry covers, with their code (--stubs: as triage entries to fill in); EVENTS-DIR: a running Stryker's event-recorder files
(STRYKER_EVENTS=1), for the mutants tested so far.
"""

import re
import sys
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
SPEC = REPO / "spec.md"
STATUSES = ("equivalent", "impl", "gap", "open")
ORIGINAL_CHARS = 160        # of the mutated text (whitespace collapsed): enough to read, short for a block


def _text(text):
    text = " ".join(text.split())
    return text if len(text) <= ORIGINAL_CHARS else text[:ORIGINAL_CHARS] + "..."


def _relative(name):
    path = Path(name)
    return str(path.relative_to(REPO)) if path.is_absolute() else name


def survivors(report):
    """[{file, mutator, original, replacement, line, id}] of the report's survived (and uncovered) mutants."""
    out = []
    for name, file in sorted(report["files"].items()):
        lines = file["source"].split("\n")
        for m in file["mutants"]:
            if m["status"] not in ("Survived", "NoCoverage"):
                continue
            start, end = m["location"]["start"], m["location"]["end"]
            if start["line"] == end["line"]:
                original = lines[start["line"] - 1][start["column"] - 1:end["column"] - 1]
            else:
                original = "\n".join([lines[start["line"] - 1][start["column"] - 1:],
                                      *lines[start["line"]:end["line"] - 1],
                                      lines[end["line"] - 1][:end["column"] - 1]])
            out.append({"file": _relative(name), "mutator": m["mutatorName"], "original": _text(original),
                        "replacement": _text(m.get("replacement", "")), "line": start["line"],
                        "column": start["column"], "id": m["id"],
                        "status": m["status"]})
    return sorted(out, key=lambda s: (s["file"], s["line"], s["mutator"], s["replacement"]))


def key(item):
    return item["file"], item["mutator"], _text(str(item["original"])), _text(str(item["replacement"]))


def key_text(item):
    return f"{item['file']}:{item['line']} {item['mutator']}: {item['original']!r} -> {item['replacement']!r}"


def load(path):
    data = yaml.safe_load(Path(path).read_text())
    return data["survivors"] or []


def match(found, entries):
    """{index into found: its entry, or None}: one entry per survivor; among entries of the same key the one
    nearest in line goes to each survivor in turn."""
    by_key = {}
    for entry in entries:
        by_key.setdefault(key(entry), []).append(entry)
    out = {}
    for i, s in enumerate(found):
        free = by_key.get(key(s), [])
        if not free:
            out[i] = None
            continue
        best = min(free, key=lambda e: (abs(int(e.get("line", 0)) - s["line"]),
                                        abs(int(e.get("column", 0)) - s.get("column", 0))))
        free.remove(best)
        out[i] = best
    return out


def impl_rules(spec_text=None):
    text = spec_text if spec_text is not None else SPEC.read_text()
    return set(re.findall(r"^- \*\*([A-Z0-9-]+)\*\* \(IMPL\)", text, re.M))


def problems(entries, spec_text=None):
    """What is wrong with the triage entries themselves (their schema), as lines."""
    spec_text = spec_text if spec_text is not None else SPEC.read_text()
    impl, spec_words = impl_rules(spec_text), " ".join(spec_text.split())
    out = []
    for n, e in enumerate(entries, 1):
        where = f"entry {n} ({e.get('file')}:{e.get('line')} {e.get('mutator')})"
        for field in ("file", "mutator", "original", "replacement", "line", "status", "reason"):
            if field not in e or e[field] is None or (field != "replacement" and e[field] == ""):
                out.append(f"{where}: no '{field}'")
        if e.get("status") not in STATUSES:
            out.append(f"{where}: status {e.get('status')!r} is none of {', '.join(STATUSES)}")
        if len(str(e.get("reason") or "").split()) < 4:
            out.append(f"{where}: the reason says too little: {e.get('reason')!r}")
        if e.get("status") == "impl" and "spec_quote" in e:
            # implementation-defined in the spec's prose, without a rule id of its own: quoted, and found there
            if " ".join(str(e["spec_quote"]).split()) not in spec_words:
                out.append(f"{where}: spec_quote is not in spec.md: {e['spec_quote']!r}")
        elif e.get("status") == "impl" and e.get("rule") not in impl:
            out.append(f"{where}: rule {e.get('rule')!r} is not an IMPL rule of spec.md ({', '.join(sorted(impl))})")
        if e.get("status") == "gap" and not (isinstance(e.get("killed_by"), list) and e["killed_by"]):
            out.append(f"{where}: a gap names the vectors that kill it now (killed_by: [ids])")
    return out


def report_of_events(directory):
    """A report's files and mutants from event-recorder files (the mutants tested so far)."""
    import json
    files = {}
    for path in sorted(Path(directory).glob("*-onMutantTested.json")):
        m = json.loads(path.read_text())
        if m["fileName"] not in files:
            files[m["fileName"]] = {"source": Path(m["fileName"]).read_text(), "mutants": []}
        files[m["fileName"]]["mutants"].append(m)
    return {"files": files}


def main(argv):
    import json
    stubs = "--stubs" in argv      # print entries to fill in (status, reason) instead
    argv = [a for a in argv if a != "--stubs"]
    where = Path(argv[0] if argv else REPO / "out/mutation/stryker/mutation.json")
    report = report_of_events(where) if where.is_dir() else json.loads(where.read_text())
    found = survivors(report)
    path = REPO / "mutation" / "stryker-triage.yaml"
    matched = match(found, load(path)) if path.exists() else {i: None for i in range(len(found))}
    untriaged = [found[i] for i, e in matched.items() if e is None]
    sources = {name: f["source"].split("\n") for name, f in report["files"].items()}
    for s in untriaged if stubs else ():
        entry = {k: s[k] for k in ("file", "line", "mutator", "original", "replacement")}
        print(yaml.safe_dump([{**entry, "status": None, "reason": None}], sort_keys=False, width=200), end="")
    for s in untriaged if not stubs else ():
        lines = next(v for k, v in sources.items() if _relative(k) == s["file"])
        print(f"{key_text(s)}\n    | {lines[s['line'] - 1].strip()}")
    print(f"{len(found)} survivors, {len(untriaged)} without a triage entry", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
