"""Before and after a Stryker run (make mutation-stryker): what a corpus change makes Stryker test again, and the
committed score.

Stryker's incremental mode (stryker-incremental.json) reuses a mutant's result while its code is unchanged; it
cannot see the corpus, which the command test runner hides from it. So each run also records the corpus files'
digests (vectors/manifest.json) and the harness's and schemas' (stryker-corpus-state.json), and `prepare` edits
the incremental file before the next run:
  - harness or schema changed (the registry's corpus_version and spec_version excepted): the file is set aside
    (a full run), since any verdict may judge differently;
  - corpus files changed (their vectors: a release's new version in every file's header is no change): survivors
    and timeouts are tested again (a new vector may kill them), and so is every
    killed mutant whose killing vector (the fail-fast line in its statusReason) is gone or lives in a changed file;
    a kill by a vector in an unchanged file stands.
`record` writes that state (as `prepare` found it when the run began) and mutation/stryker-score.json (the counts
and the score, with the corpus version and date) from Stryker's JSON report. The score's definitions are in score().

  python3 mutation/stryker/incremental.py prepare | record
"""

import datetime
import hashlib
import json
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
HERE = REPO / "mutation" / "stryker"
INCREMENTAL = HERE / "stryker-incremental.json"
STATE = HERE / "stryker-corpus-state.json"
REPORT = REPO / "out" / "mutation" / "stryker" / "mutation.json"
RUN_STATE = REPO / "out" / "mutation" / "stryker" / "run-state.json"     # the corpus as the run began
SCORE = REPO / "mutation" / "stryker-score.json"
TRIAGE = REPO / "mutation" / "stryker-triage.yaml"
VECTORS = REPO / "vectors"

DETECTED = ("Killed", "Timeout")
UNDETECTED = ("Survived", "NoCoverage")
KILLER = re.compile(r"^fail-fast: \S+ (\S+) ", re.M)     # harness/fail_fast.py's line


# The registry's release numbers judge nothing: a corpus release bumps them, and its vector files are what the
# corpus-change rule below retests. Everything else in the registry (types, rules, frame layouts) judges.
VERSION_FIELDS = ("corpus_version", "spec_version")


def judged_bytes(path):
    if path.name != "registry.json":
        return path.read_bytes()
    registry = json.loads(path.read_text(encoding="utf-8"))
    return json.dumps({k: v for k, v in registry.items() if k not in VERSION_FIELDS}, sort_keys=True).encode()


def judge_digest():
    """One digest of what judges a verdict: the harness's sources and the schemas (the registry without its
    release numbers)."""
    h = hashlib.sha256()
    for path in sorted([*(REPO / "harness").glob("*.py"), *(REPO / "schema").glob("*.json")]):
        h.update(f"{path.relative_to(REPO)} {hashlib.sha256(judged_bytes(path)).hexdigest()}\n".encode())
    return h.hexdigest()


def vectors_digest(text):
    """A corpus file's vectors, not its header: a release rewrites every file's corpus_version and nothing else."""
    return hashlib.sha256(json.dumps(json.loads(text)["vectors"], sort_keys=True).encode()).hexdigest()


def corpus_files():
    manifest = json.loads((VECTORS / "manifest.json").read_text())
    return manifest["corpus_version"], {f["path"]: vectors_digest((VECTORS / f["path"]).read_text(encoding="utf-8"))
                                        for f in manifest["files"]}


def vector_files(names):
    """{vector id: its corpus file} for the files named."""
    out = {}
    for name in names:
        for vector in json.loads((VECTORS / name).read_text())["vectors"]:
            out[vector["id"]] = name
    return out


def killer(mutant):
    match = KILLER.search(mutant.get("statusReason") or "")
    return match.group(1) if match else None


def current_state():
    version, files = corpus_files()
    return {"corpus_version": version, "judge": judge_digest(), "files": files}


def prepare():
    # What this run tests against, recorded as it begins: the corpus may be edited while a long run goes on.
    RUN_STATE.parent.mkdir(parents=True, exist_ok=True)
    RUN_STATE.write_text(json.dumps(current_state()))
    if not INCREMENTAL.exists() or not STATE.exists():
        print("stryker: no earlier run recorded: a full run")
        return
    state = json.loads(STATE.read_text())
    if state["judge"] != judge_digest():
        INCREMENTAL.rename(INCREMENTAL.with_suffix(".stale.json"))
        print("stryker: the harness or a schema changed since the last run: a full run "
              f"({INCREMENTAL.name} set aside as {INCREMENTAL.with_suffix('.stale.json').name})")
        return
    version, files = corpus_files()
    changed = {name for name in set(files) | set(state["files"]) if files.get(name) != state["files"].get(name)}
    if not changed:
        print(f"stryker: corpus {version} unchanged since the last run: Stryker retests changed code only")
        return
    where = vector_files(set(files) - changed)      # vectors of unchanged files: their kills stand
    report = json.loads(INCREMENTAL.read_text())
    undetected = stale = 0
    for file in report["files"].values():
        kept = []
        for m in file["mutants"]:
            if m["status"] in DETECTED and m["status"] != "Timeout" and killer(m) in where:
                kept.append(m)
            elif m["status"] in DETECTED:
                stale += 1
            else:
                undetected += m["status"] in UNDETECTED
                # compile and runtime errors are Stryker's own verdicts on the code: kept as they were
                if m["status"] not in UNDETECTED:
                    kept.append(m)
        file["mutants"] = kept
    INCREMENTAL.write_text(json.dumps(report))
    print(f"stryker: corpus files changed since the last run ({', '.join(sorted(changed))}): retesting "
          f"{undetected} survivors and {stale} kills or timeouts not by a vector of an unchanged file")


def score(report, equivalent=0):
    """Counts by status, Stryker's mutation score (detected / valid mutants: killed + timeout over killed + timeout +
    survived + no coverage; compile and runtime errors are not mutants the corpus could see) and the score on
    mutants that are not equivalent (the same with the triaged-equivalent survivors left out)."""
    counts = {}
    for file in report["files"].values():
        for m in file["mutants"]:
            counts[m["status"]] = counts.get(m["status"], 0) + 1
    detected = sum(counts.get(s, 0) for s in DETECTED)
    valid = detected + sum(counts.get(s, 0) for s in UNDETECTED)
    return {"mutants": sum(counts.values()), "counts": dict(sorted(counts.items())),
            "score": round(100 * detected / valid, 2) if valid else None,
            "equivalent": equivalent,
            "score_non_equivalent": round(100 * detected / (valid - equivalent), 2) if valid > equivalent else None}


def record():
    sys.path.insert(0, str(HERE))
    import triage       # mutation/stryker/triage.py
    report = json.loads(REPORT.read_text())
    state = json.loads(RUN_STATE.read_text()) if RUN_STATE.exists() else current_state()
    version = state["corpus_version"]
    STATE.write_text(json.dumps(state, indent=1, sort_keys=True) + "\n")
    survivors = triage.survivors(report)
    matched = triage.match(survivors, triage.load(TRIAGE)) if TRIAGE.exists() else {}
    equivalent = sum(1 for entry in matched.values() if entry and entry["status"] == "equivalent")
    summary = {"date": datetime.date.today().isoformat(), "corpus_version": version,
               "files": sorted(report["files"]), **score(report, equivalent),
               "untriaged": sum(1 for entry in matched.values() if entry is None) if TRIAGE.exists() else None,
               "survivors": [{k: s[k] for k in ("file", "line", "mutator", "original", "replacement")}
                             for s in survivors]}
    SCORE.write_text(json.dumps(summary, indent=1) + "\n")
    print(f"stryker: {summary['mutants']} mutants {summary['counts']}; score {summary['score']} %, "
          f"{summary['score_non_equivalent']} % without the {equivalent} equivalent ones "
          f"(corpus {version}) -> {SCORE.relative_to(REPO)}")


if __name__ == "__main__":
    {"prepare": prepare, "record": record}[sys.argv[1]]()
