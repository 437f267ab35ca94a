"""The mutant catalogue (mutation/catalogue.yaml) and its triage (mutation/triage.yaml) as data, and the checks
that need no run: every entry well formed, every edit applying exactly once to today's runner file, every MUST
rule of spec.md sections 4 to 6 and of the frame layer (section 11's FR-* rules) modelled by some mutant, every triage entry naming a mutant that exists."""

import json
import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
CATALOGUE = ROOT / "mutation" / "catalogue.yaml"
TRIAGE = ROOT / "mutation" / "triage.yaml"
SPEC = ROOT / "spec.md"

FIELDS = {"id", "runner", "file", "search", "replace", "models", "rules"}
OPTIONAL = {"bug", "historical", "community"}
STATUSES = {"equivalent", "impl", "gap"}
COVERED_SECTIONS = (4, 5, 6, 11)   # spec.md: MessagePack, Ignite ext types, column types; 11 the frame layer
# Section 11 also holds the protocol-over-time rules (PT-*, the node's): a codec mutant cannot break those, so only
# the frame-layer rules of that section (FR-*) need one.
SECTION_PREFIXES = {11: "FR-"}
RULE = re.compile(r"\*\*([A-Z0-9-]+)\*\* \((MUST|SHOULD|MAY|IMPL)\)")


class CatalogueError(Exception):
    pass


def load(path=CATALOGUE):
    with open(path, encoding="utf-8") as f:
        data = yaml.safe_load(f)
    return data["runners"], data["mutants"]


def load_triage(path=TRIAGE):
    with open(path, encoding="utf-8") as f:
        return yaml.safe_load(f) or {}


def spec_rules(spec=SPEC):
    """{rule id: (section number, level)} for every rule spec.md defines (`**ID** (LEVEL)`)."""
    rules, section = {}, None
    for line in spec.read_text(encoding="utf-8").splitlines():
        m = re.match(r"## (\d+)\.", line)
        if m:
            section = int(m.group(1))
        for rid, level in RULE.findall(line):
            rules.setdefault(rid, (section, level))
    return rules


def must_rules():
    return sorted(r for r, (s, level) in spec_rules().items()
                  if level == "MUST" and s in COVERED_SECTIONS and r.startswith(SECTION_PREFIXES.get(s, "")))


def runner_file(runners, m):
    return ROOT / runners[m["runner"]]["dir"] / m["file"]


def apply(text, m):
    """The file text with mutant m's edit made; CatalogueError unless its search text occurs exactly once."""
    n = text.count(m["search"])
    if n != 1:
        raise CatalogueError(f"{m['id']}: the search text occurs {n} times in {m['runner']}/{m['file']} "
                             f"(must be exactly once): {m['search'][:80]!r}")
    return text.replace(m["search"], m["replace"])


def problems(runners, mutants, triage):
    """Every fault of the catalogue and the triage, as lines; [] when both are sound."""
    out, seen = [], set()
    rules = spec_rules()
    for m in mutants:
        mid = m.get("id", "?")
        missing, extra = FIELDS - m.keys(), m.keys() - FIELDS - OPTIONAL
        if missing or extra:
            out.append(f"{mid}: missing fields {sorted(missing)}, unknown fields {sorted(extra)}")
            continue
        if mid in seen:
            out.append(f"{mid}: id repeats")
        seen.add(mid)
        if m["runner"] not in runners:
            out.append(f"{mid}: unknown runner {m['runner']!r} (catalogue runners: {sorted(runners)})")
            continue
        if m["search"] == m["replace"]:
            out.append(f"{mid}: the edit changes nothing")
        unknown = [r for r in m["rules"] if r not in rules]
        if unknown:
            out.append(f"{mid}: rules not defined in spec.md: {unknown}")
        if m.get("historical") and not m.get("bug"):
            out.append(f"{mid}: historical, but no `bug` says which one (spec section, commit or issue)")
        path = runner_file(runners, m)
        try:
            apply(path.read_text(encoding="utf-8"), m)
        except OSError as e:
            out.append(f"{mid}: cannot read {path}: {e}")
        except CatalogueError as e:
            out.append(str(e))
    for mid, entry in triage.items():
        if mid not in seen:
            out.append(f"triage {mid}: no such mutant in the catalogue")
        if not isinstance(entry, dict) or entry.get("status") not in STATUSES:
            out.append(f"triage {mid}: status must be one of {sorted(STATUSES)}")
        elif not entry.get("why"):
            out.append(f"triage {mid}: no `why`")
        elif entry["status"] == "impl" and entry.get("rule") not in rules:
            out.append(f"triage {mid}: status impl needs `rule`, the IMPL (or profile) rule of spec.md that allows it")
        elif entry["status"] == "gap" and not (entry.get("sources") and entry.get("vectors")):
            out.append(f"triage {mid}: a gap names the generator `sources` that close it and the `vectors` that kill it")
        elif entry["status"] == "gap":
            out += [f"triage {mid}: no source {s}" for s in entry["sources"] if not (ROOT / s).is_file()]
            ids = corpus_ids()
            out += [f"triage {mid}: no vector {v} in vectors/" for v in entry["vectors"] if v not in ids]
    return out


_IDS = set()


def corpus_ids():
    """Every vector id of vectors/ (read once)."""
    if not _IDS:
        for f in (ROOT / "vectors").glob("*.json"):
            with open(f, encoding="utf-8") as fh:
                data = json.load(fh)
            _IDS.update(v["id"] for v in data.get("vectors", ()))
    return _IDS


def uncovered(mutants):
    """Every MUST rule of spec.md sections 4 to 6 and FR-* rule of 11 that no mutant names, as lines."""
    covered, rules = {r for m in mutants for r in m.get("rules", ())}, spec_rules()
    return [f"MUST rule {r} (spec.md section {rules[r][0]}) has no mutant" for r in must_rules() if r not in covered]


def unexplained(results, triage):
    """Verdict problems of a run: survivors without an equivalent/impl triage entry (a gap entry says the gap is
    closed, so its mutant must be killed), and triage entries that call a killed mutant equivalent or allowed."""
    out = []
    for r in results:
        entry = triage.get(r["id"])
        status = entry.get("status") if entry else None
        if r["status"] == "survived" and status not in ("equivalent", "impl"):
            out.append(f"{r['id']}: survived, " + (f"but its triage says the gap is closed by {entry.get('sources')}"
                                                   if status == "gap" else "and has no triage entry"))
        elif r["status"] == "killed" and status in ("equivalent", "impl"):
            out.append(f"{r['id']}: killed by {r['failures']} vectors (e.g. {r['killers'][0]}), "
                       f"but triaged {status}: the entry is wrong or stale")
        elif r["status"] == "error":
            out.append(f"{r['id']}: error: {r['detail']}")
    return out
