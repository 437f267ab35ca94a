"""Runs the mutant catalogue: each mutant is applied to a scratch copy of its runner, the runner is built (if it
needs building) and started once, and the harness runs it over the whole corpus. A mutant is `killed` when some
verdict fails, `survived` when every one passes, and an `error` when its edit does not apply, its build fails or
the mutated runner does not answer `start` (none of which says anything about the corpus).

    python3 -m mutation.run                    # every mutant; out/mutation/catalogue.json and catalogue.md
    python3 -m mutation.run --historical       # only the `historical: true` / `community: true` ones
    python3 -m mutation.run --id py.uuid-le-written-be --id go.bt-decimal-scale-int8
    python3 -m mutation.run --historical --first-kill   # make test's subset, each run stopped at its first kill
    python3 -m mutation.run --corpus DIR       # over another corpus (an older release: which mutants it misses)
    python3 -m mutation.run --check            # no runs: the catalogue and triage checks (catalogue.problems)
    python3 -m mutation.run --score mutation/score.json   # also write the committed score (make mutation)

Exit status: 0 when every mutant is killed or triaged equivalent/impl, 1 otherwise, 2 for a broken catalogue or
an unmutated runner that does not pass (then every kill would be meaningless).

The whole corpus, not a selection per mutant: a selection could hide a vector that would kill it. A full run counts
the vectors that kill each mutant (`failures`: how many of its kills rest on one vector); --first-kill stops each
run at its first failing verdict, read from the harness's journal as it is written (the harness of this commit
has no option for that)."""

import argparse
import concurrent.futures
import datetime
import json
import os
import shlex
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

from mutation import catalogue as cat

OUT = cat.ROOT / "out" / "mutation"
PY = sys.executable
CORPUS = cat.ROOT / "vectors"     # --corpus: e.g. an older release, to show which mutants its vectors miss
PASSING = {"pass", "coarse", "xfail", "info", "unclaimed"}     # harness/results.py PASSING
KILLERS_KEPT = 5           # killing vector ids recorded per mutant
START_TIMEOUT = 60         # seconds for a built runner to answer `start`
BUILD_TIMEOUT = 600


def corpus_version():
    """The version of the corpus the mutants run over (its manifest), else the registry's."""
    for path in (CORPUS / "manifest.json", cat.ROOT / "schema" / "registry.json"):
        if path.is_file():
            return json.loads(path.read_text(encoding="utf-8"))["corpus_version"]


class Scratch:
    """A copy of one runner under <out>/work/<slot>/runners/<name>, beside a copy of the repository's schema/
    (the runners read ../../schema/registry.json; a mutant with `file: ../../schema/registry.json` edits the
    scratch copy's frame layouts, restored after it like any file). `cache` entries of the runner's config become links
    into out/mutation/cache/, so that a rebuild after one edited file compiles only that (Go's build cache)."""

    def __init__(self, name, config, slot, out=OUT):
        self.name, self.config = name, config
        self.src = cat.ROOT / config["dir"]
        base = Path(out) / "work" / slot
        self.dir = base / "runners" / name
        if self.dir.exists():
            shutil.rmtree(self.dir)
        self.dir.mkdir(parents=True)
        schema = base / "schema"          # a copy, never a link: a layout mutant edits its registry.json
        if schema.is_symlink():
            schema.unlink()
        shutil.rmtree(schema, ignore_errors=True)    # today's schema, not an earlier run's
        shutil.copytree(cat.ROOT / "schema", schema)
        for pattern in config["copy"]:
            for f in self.src.glob(pattern):
                shutil.copy2(f, self.dir / f.name)
        for rel in config.get("cache", ()):
            shared = OUT / "cache" / name / rel
            shared.mkdir(parents=True, exist_ok=True)
            (self.dir / rel).parent.mkdir(parents=True, exist_ok=True)
            (self.dir / rel).symlink_to(shared)
        self.command = config["command"].format(work=self.dir)
        self.out = base / f"report-{name}"

    def restore(self, file):
        shutil.copy2(self.src / file, self.dir / file)
        os.utime(self.dir / file)       # newer than the mutant's build: make rebuilds

    def build(self):
        if not self.config.get("build"):
            return None
        # Not the calling make's flags (make -n would make this build a dry run, -j a race on the scratch copy).
        env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
        p = subprocess.run(self.config["build"], shell=True, cwd=self.dir, capture_output=True, text=True,
                           timeout=BUILD_TIMEOUT, env=env)
        return None if p.returncode == 0 else f"build failed ({p.returncode}): {(p.stderr or p.stdout)[-600:]}"

    def starts(self):
        """None when the runner answers `start`, else why not."""
        line = json.dumps({"cmd": "start", "protocol": 1, "corpus_version": corpus_version()}) + "\n"
        try:
            p = subprocess.run(shlex.split(self.command), input=line, cwd=self.src, capture_output=True, text=True,
                               timeout=START_TIMEOUT)
        except (OSError, subprocess.TimeoutExpired) as e:
            return f"runner did not start: {e}"
        first = (p.stdout.splitlines() or [""])[0]
        try:
            if "protocol" in json.loads(first):
                return None
        except ValueError:
            pass
        return f"runner crashed at start (exit {p.returncode}): {p.stderr[-600:]!r}"

    def verify(self, first_kill=False):
        """(failing verdicts: {vector: verdict}, error or None) of one harness run over the whole corpus. With
        first_kill the run is stopped (SIGTERM: the harness stops its runner and writes what it has) at the first
        failing verdict in its journal (out/verdicts.jsonl, written as verdicts come in): a kill needs only one."""
        argv = [PY, "-m", "harness", "verify", "--runners", self.name, "--command", f"{self.name}={self.command}",
                "--out", str(self.out), "--no-matrix", "--timeout", "5", "--max-faults", "3", "--max-diagnoses", "0",
                "--corpus", str(CORPUS)]
        journal = self.out / "verdicts.jsonl"
        journal.unlink(missing_ok=True)
        p = subprocess.Popen(argv, cwd=cat.ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        failing = {}
        if first_kill:
            failing = _watch(p, journal)
        stdout, stderr = p.communicate()
        if failing:       # stopped on purpose (exit 143), or finished in the meantime
            return failing, None
        if p.returncode not in (0, 1):
            return {}, f"harness exit {p.returncode}: {stderr[-600:]}"
        report = json.loads((self.out / "report.json").read_text(encoding="utf-8"))
        for v in report["verdicts"]:
            if v["verdict"] not in PASSING:
                failing.setdefault(v["vector"], v["verdict"])
        if p.returncode == 1 and not failing:
            return {}, f"harness failed the run without a failing verdict: {stdout[-400:]}"
        return failing, None


def _impl_vectors():
    """Ids of the impl-level vectors: their outcomes are recorded as `info`, never a failure (harness/results.py)."""
    if not _IMPL:
        for f in CORPUS.glob("*.json"):
            _IMPL.update(v["id"] for v in json.loads(f.read_text(encoding="utf-8")).get("vectors", ())
                         if v.get("level") == "impl")
        _IMPL.add(None)
    return _IMPL


_IMPL = set()


def _watch(p, journal):
    """Reads the journal while p runs; at the first failing outcome of a vector that is not impl-level, stops p
    and returns {vector: outcome}. {} when p ends first."""
    impl, rest, ended = _impl_vectors(), b"", False
    while not journal.exists() and p.poll() is None:
        time.sleep(0.05)
    if not journal.exists():
        return {}
    with open(journal, "rb") as f:
        while True:
            chunk = f.read()
            if not chunk:
                if ended:
                    return {}
                ended = p.poll() is not None   # one more read after the end: its last lines
                time.sleep(0.05)
                continue
            *lines, rest = (rest + chunk).split(b"\n")   # rest: a line still being written
            for line in lines:
                rec = json.loads(line)
                outcome = rec.get("outcome")
                if outcome and outcome not in PASSING and rec.get("vector") not in impl:
                    p.terminate()
                    return {rec["vector"]: outcome}


def run_one(scratch, m, first_kill=False):
    t0 = time.monotonic()
    result = {"id": m["id"], "runner": m["runner"], "file": m["file"], "rules": m["rules"], "models": m["models"],
              "historical": bool(m.get("historical")), "community": bool(m.get("community")),
              "failures": 0, "killers": [], "detail": ""}
    path = scratch.dir / m["file"]
    try:
        path.write_text(cat.apply(path.read_text(encoding="utf-8"), m), encoding="utf-8")
        error = scratch.build() or scratch.starts()
        failing = {}
        if not error:
            failing, error = scratch.verify(first_kill)
    except cat.CatalogueError as e:
        error = str(e)
    finally:
        scratch.restore(m["file"])
    if error:
        result.update(status="error", detail=error)
    elif failing:
        kinds = sorted(set(failing.values()))
        result.update(status="killed", failures=len(failing), killers=sorted(failing)[:KILLERS_KEPT],
                      detail=f"verdicts: {', '.join(kinds)}")
    else:
        result.update(status="survived")
    result["seconds"] = round(time.monotonic() - t0, 2)
    return result


def baseline(scratch):
    """Why the unmutated runner cannot serve as the reference, or None."""
    error = scratch.build() or scratch.starts()
    if error:
        return error
    failing, error = scratch.verify()
    return error or (f"{len(failing)} vectors fail unmutated (e.g. {sorted(failing)[:3]})" if failing else None)


def run_all(runners, mutants, jobs, log, first_kill=False, out=OUT):
    """Results in catalogue order. Each worker slot has its own scratch copies; one runner's mutants in a row."""
    slots, lock, results = {}, threading.Lock(), {}

    def work(m):
        key = threading.get_ident()
        with lock:
            slot = slots.setdefault(key, f"w{len(slots)}")
        mine = getattr(local, "scratch", {})
        local.scratch = mine
        if m["runner"] not in mine:
            mine[m["runner"]] = Scratch(m["runner"], runners[m["runner"]], slot, out)
        r = run_one(mine[m["runner"]], m, first_kill)
        with lock:
            results[m["id"]] = r
            log(f"{len(results):3}/{len(mutants)} {r['status']:8} {r['id']:44} {r['seconds']:6.1f}s "
                f"{r['failures'] or ''} {r['detail'][:100] if r['status'] == 'error' else ''}")
        return r

    local = threading.local()
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        list(pool.map(work, mutants))
    return [results[m["id"]] for m in mutants]


def summary(results, triage, seconds, jobs):
    def counts(rs):
        c = {s: sum(r["status"] == s for r in rs) for s in ("killed", "survived", "error")}
        c["total"] = len(rs)
        c["survived_triaged"] = {s: sum(r["status"] == "survived" and triage.get(r["id"], {}).get("status") == s
                                        for r in rs) for s in ("equivalent", "impl")}
        return c
    by_runner = {name: counts([r for r in results if r["runner"] == name])
                 for name in sorted({r["runner"] for r in results})}
    return {"corpus_version": corpus_version(), "date": datetime.date.today().isoformat(),
            "commit": _git_head(), **counts(results), "runners": by_runner,
            "seconds": round(seconds, 1), "jobs": jobs, "cpus": os.cpu_count()}


def _git_head():
    p = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=cat.ROOT, capture_output=True, text=True)
    return p.stdout.strip() or None


def table(results, triage, head):
    lines = [f"# Mutant catalogue: {head['killed']} of {head['total']} killed (corpus {head['corpus_version']}, "
             f"{head['date']}, {head['seconds']} s)", "",
             "| mutant | runner | status | killing vectors | triage / detail | models |", "|---|---|---|---|---|---|"]
    for r in results:
        t = triage.get(r["id"])
        note = f"{t['status']}: {t['why']}" if t else r["detail"]
        example = f"{r['failures']} (e.g. `{r['killers'][0]}`)" if r["killers"] else ""
        lines.append(f"| `{r['id']}` | {r['runner']} | {r['status']} | {example} | {note} | {r['models']} |"
                     .replace("\n", " "))
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m mutation.run", description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="check the catalogue and the triage, run nothing")
    ap.add_argument("--historical", action="store_true", help="only the historical and community-client mutants")
    ap.add_argument("--id", action="append", default=[], help="only this mutant (repeatable)")
    ap.add_argument("--runner", action="append", default=[], help="only this runner's mutants (repeatable)")
    ap.add_argument("--first-kill", action="store_true",
                    help="stop each run at its first failing verdict (faster; `failures` is then 1 for every kill)")
    ap.add_argument("--jobs", type=int, default=1, help="mutants run at once (default 1)")
    ap.add_argument("--corpus", help="run over this corpus directory instead of vectors/ (e.g. an older release)")
    ap.add_argument("--out", default=str(OUT), help="where catalogue.json and catalogue.md go")
    ap.add_argument("--score", help="also write the score summary here (make mutation: mutation/score.json)")
    args = ap.parse_args(argv)
    global CORPUS
    CORPUS = Path(args.corpus).resolve() if args.corpus else CORPUS
    runners, mutants = cat.load()
    triage = cat.load_triage()
    faults, gaps = cat.problems(runners, mutants, triage), cat.uncovered(mutants)
    for f in faults + gaps:
        print(f"catalogue: {f}", file=sys.stderr)
    if faults or (gaps and args.check):
        return 2
    if args.check:
        print(f"catalogue: {len(mutants)} mutants apply; every MUST rule of spec.md 4-6 and FR-* rule of 11 ({len(cat.must_rules())}) "
              f"has one; {len(triage)} triage entries name existing mutants")
        return 0
    chosen = [m for m in mutants if (not args.id or m["id"] in args.id) and (not args.runner or m["runner"] in args.runner)
              and (not args.historical or m.get("historical") or m.get("community"))]
    if not chosen:
        print("mutation: nothing selected", file=sys.stderr)
        return 2
    for name in sorted({m["runner"] for m in chosen}):
        error = baseline(Scratch(name, runners[name], "baseline", args.out))
        if error:
            print(f"mutation: the unmutated {name} runner is no reference: {error}", file=sys.stderr)
            return 2
    t0 = time.monotonic()
    results = run_all(runners, chosen, max(1, args.jobs), lambda s: print(s, flush=True), args.first_kill, args.out)
    head = summary(results, triage, time.monotonic() - t0, args.jobs)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "catalogue.json").write_text(json.dumps({**head, "mutants": results}, indent=1) + "\n", encoding="utf-8")
    (out / "catalogue.md").write_text(table(results, triage, head), encoding="utf-8")
    if args.score:
        Path(args.score).write_text(json.dumps(head, indent=1) + "\n", encoding="utf-8")
    bad = cat.unexplained(results, triage)
    for line in bad:
        print(f"mutation: {line}", file=sys.stderr)
    print(f"mutation: {head['killed']} of {head['total']} killed, {head['survived']} survived "
          f"({head['survived_triaged']['equivalent']} equivalent, {head['survived_triaged']['impl']} impl), "
          f"{head['error']} errors, {head['seconds']} s; {out / 'catalogue.md'}")
    return 1 if bad or gaps else 0


if __name__ == "__main__":
    sys.exit(main())
