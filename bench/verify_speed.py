"""Verify speed: the warm `make verify` against its floor, and each runner's steady-state throughput.

    /usr/bin/python3 bench/verify_speed.py [--reps 3] [--copies 10] [--runners a,b,...] [--quick]
        [--against DIR]

--against DIR: another checkout of this repository (e.g. `git worktree add /tmp/old <commit>`, runners built there
by one `make verify`), measured in the same run, interleaved with this one: its warm `make verify` (ratio against
the same floor) and its runners alone. Before and after, on the same machine at the same time.

1. Warm `make verify` (every runner, the whole corpus, builds up to date: one untimed run first), --reps times.
2. The floor: per runner, its bare runtime starting and parsing every corpus file once (bench/floor/), all of
   them started at once as the harness starts its runners (also shown one by one). Ratio = verify / floor; goal <= 1.5.
3. Throughput per runner after start-up: the runner alone fed every request of the corpus from a file, at 1x, 3x
   and 10x the corpus (copies with new ids); the slope between sizes is vectors/s with start-up subtracted.
   The same through the harness (`--corpus` on the 1x and 10x copies). Goal: >= 100,000 vectors/s per runner.
4. Where the time goes: harness CPU vs runner CPU in one in-process run (getrusage self vs children), and a
   cProfile of the harness over one runner grouped by module.
Writes bench/out/verify-speed.json and bench/out/verify-speed.md. Exit status 1 when a runner misses its target
(RUNNER_TARGETS, vectors per CPU second: the hard goals, met today, so a miss is a regression); the ratio and
throughput goals above are stretch goals: printed as figures, met or missed, and never the exit status.
"""
import argparse
import cProfile
import io
import json
import os
import platform
import pstats
import resource
import shlex
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(BENCH))

from harness import cli, runner_session, verify as pipeline  # noqa: E402
from harness import corpus as corpus_mod, ops as ops_mod  # noqa: E402
from harness.runner_config import known_runners, resolve  # noqa: E402
from stats import fmt_seconds, summary, timed, timed_cpu, timed_together  # noqa: E402

PY = "/usr/bin/python3"
# Stretch goals: where the work is heading, not met yet (bench/README.md): reported, never a failing exit.
RATIO_GOAL = 1.5
THROUGHPUT_GOAL = 100_000
# Issue 20's targets per runner, vectors per CPU second: under 1 KiB, and the whole corpus (3x its 2026-11-23
# figures: python 6,791, java 9,463, cpp 15,838, js 7,665 vectors/s). Runners not named here have none yet.
RUNNER_TARGETS = {"python": {"small": 50_000, "all": 20_373}, "java": {"small": 100_000, "all": 28_389},
                  "cpp": {"small": 100_000, "all": 47_514}, "js": {"small": 50_000, "all": 22_995}}
SUBSETS = ("all", "small")
SMALL = 1024  # bytes of request line: "small" vectors (the other ~3 % of ops are 97 % of the bytes)
JAVA_FLOOR_CP = "bench/build/java-floor:/usr/share/java/jackson-databind.jar:/usr/share/java/jackson-core.jar:" \
                "/usr/share/java/jackson-annotations.jar"


def floor_commands(corpus):
    """Per runner: its runtime's bare start-up plus one parse of the corpus, the runtime started as the runner's
    runner.json starts it (its interpreter flags and environment: they change start-up, JIT and GC for both)."""
    return {"python": [*_runtime("python", "runner.py"), "bench/floor/read_corpus.py", corpus],
            "java": [*_runtime("java", "-cp"), "-cp", JAVA_FLOOR_CP, "ReadCorpus", corpus],
            "cpp": ["bench/build/read_corpus", corpus],
            "js": [*_runtime("js", "runner.mjs"), "bench/floor/read_corpus.mjs", corpus],
            "go": ["bench/build/read_corpus_go", corpus],
            "rust": ["bench/build/rust/release/read_corpus", corpus],
            "csharp": ["bench/build/csharp-floor/ReadCorpus", corpus]}


def _runtime(runner, entry):
    """The runner's command up to `entry` (its program, or where its own classpath starts)."""
    command = json.loads((ROOT / "runners" / runner / "runner.json").read_text())["command"]
    return command[:command.index(entry)]


def build_prerequisites(runners):
    """The floor programs (bench/build/) and the runners: built here through make (a no-op when up to date), so
    the script works on a fresh clone; if make fails, say which target to run instead of a traceback later."""
    for argv in (["make", "--no-print-directory", "-C", "bench", "floor"],
                 ["make", "--no-print-directory", "setup", *(f"runner-{r}" for r in runners)]):
        env = {k: v for k, v in os.environ.items() if not k.startswith("MAKE") and k != "MFLAGS"}
        if subprocess.run(argv, cwd=ROOT, stdout=sys.stderr, env=env).returncode != 0:
            raise SystemExit(f"verify_speed: could not build its prerequisites ({shlex.join(argv)} failed); "
                             "run `make bench-verify` from the repository root, which builds them")


def make_corpus(src, dst, copies):
    """dst gets `copies` copies of every corpus file of src; copy k > 0 has ids suffixed -x<k>."""
    dst.mkdir(parents=True, exist_ok=True)
    for p in sorted(src.glob("*.json")):
        if p.name == "manifest.json":
            continue
        data = json.loads(p.read_bytes())
        for k in range(copies):
            if k:
                data_k = dict(data, vectors=[dict(v, id=f"{v['id']}-x{k}") for v in data["vectors"]])
            else:
                data_k = data
            (dst / f"{p.stem}-x{k}.json").write_text(json.dumps(data_k, ensure_ascii=False), encoding="utf-8")
    return dst


def request_files(corpus_dir, path, small_path):
    """Every request the harness would send for this corpus, as one stdin file (start, the ops, stop); and the
    same for the ops whose request line is at most SMALL bytes (the few large vectors carry most of the bytes)."""
    corpus = corpus_mod.load(corpus_dir)
    plan = ops_mod.plan(corpus.vectors)
    counts = {}
    with open(path, "wb") as f, open(small_path, "wb") as g:
        for out in (f, g):
            out.write(ops_mod.encode_line(ops_mod.start_request(corpus.version)))
        small_ops, small_vectors = 0, set()
        for i, op in enumerate(plan, 1):
            line = op.request_line(i)
            f.write(line)
            if len(line) <= SMALL:
                g.write(line)
                small_ops += 1
                small_vectors.add(op.vector_id)
        for out in (f, g):
            out.write(ops_mod.encode_line({"cmd": "stop"}))
    counts["all"] = {"vectors": len(corpus.vectors), "ops": len(plan), "mb": Path(path).stat().st_size / 1e6}
    counts["small"] = {"vectors": len(small_vectors), "ops": small_ops, "mb": Path(small_path).stat().st_size / 1e6}
    return counts


def slope(points):
    """Least-squares items per second over (items, seconds) points: start-up (the intercept) drops out."""
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    sxy = sum((x - mx) * (y - my) for x, y in points)
    sxx = sum((x - mx) ** 2 for x, _ in points)
    return sxx / sxy if sxy > 0 else float("inf"), my - (sxy / sxx) * mx


def runner_direct(config, requests, reps):
    """Wall and CPU seconds of the runner alone answering every request in the file (responses read, counted)."""
    walls, cpus = [], []
    for _ in range(reps):
        with open(requests, "rb") as f:
            wall, cpu, code, out = timed_cpu(config.argv, cwd=config.cwd, stdin=f)
        if code != 0:
            raise SystemExit(f"{config.name} exited {code} on {requests}")
        walls.append(wall)
        cpus.append(cpu)
        answers = out.count(b"\n")
    return summary(walls), summary(cpus), answers


def harness_run(runner, corpus_dir, out_dir, reps):
    """Wall and CPU (harness + runner) seconds of the harness over one runner and this corpus."""
    argv = [PY, "-m", "harness", "verify", "--runners", runner, "--corpus", str(corpus_dir), "--out", str(out_dir)]
    runs = [timed_cpu(argv, cwd=ROOT) for _ in range(reps)]
    return summary([r[0] for r in runs]), summary([r[1] for r in runs])


def in_process_split(runners, out_dir):
    """One harness run in this process: wall, harness CPU (this process) and runner CPU (its children)."""
    s0, c0, t0 = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    # --serial: with worker processes the judging would count as children's CPU, not the harness's.
    cli.main(["verify", "--runners", runners, "--out", str(out_dir), "--serial"], stdout=io.StringIO(),
             stderr=io.StringIO())
    s1, c1, t1 = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    cpu = lambda a, b: (b.ru_utime - a.ru_utime) + (b.ru_stime - a.ru_stime)  # noqa: E731
    return {"wall": t1 - t0, "harness_cpu": cpu(s0, s1), "runner_cpu": cpu(c0, c1)}


CATEGORIES = [("response schema checks", ("fast_schema.py", "schemas.py", "jsonschema")),
              ("JSON encode/decode", ("json/",)),
              ("judging and diagnoses", ("judge.py", "values.py", "diagnosis.py", "msgpack_annotate.py")),
              ("corpus load and manifest", ("corpus.py", "manifest.py")),
              ("reports", ("report.py", "junit.py", "results.py", "expectations.py", "matrix.py")),
              ("waiting (runner, pipes, GIL)", ("_thread.lock", "{method 'acquire'", "queue.py", "threading.py"))]


def profile_harness(runner, out_dir):
    """cProfile of the harness threads (the verify thread and the runner's session thread), tottime by module."""
    profiles = []

    def wrap(fn):
        def inner(*a, **k):
            prof = cProfile.Profile()
            prof.enable()
            try:
                return fn(*a, **k)
            finally:
                prof.disable()
                profiles.append(prof)
        return inner

    saved = runner_session.Session.run, pipeline.verify
    runner_session.Session.run, pipeline.verify = wrap(saved[0]), wrap(saved[1])
    try:
        cli.main(["verify", "--runners", runner, "--out", str(out_dir)], stdout=io.StringIO(), stderr=io.StringIO())
    finally:
        runner_session.Session.run, pipeline.verify = saved
    stats = pstats.Stats(profiles[0])
    for p in profiles[1:]:
        stats.add(p)
    totals = {name: 0.0 for name, _ in CATEGORIES}
    totals["other"] = 0.0
    for (filename, _, func), (_, _, tottime, _, _) in stats.stats.items():
        where = f"{filename} {func}"
        name = next((n for n, keys in CATEGORIES if any(k in where for k in keys)), "other")
        totals[name] += tottime
    # The verify thread waits (join) while the session thread works: that wait is not harness work.
    busy = sum(v for k, v in totals.items() if not k.startswith("waiting"))
    top = sorted(((v[2], f"{Path(k[0]).name}:{k[1]}({k[2]})") for k, v in stats.stats.items()
                  if "acquire" not in k[2]), reverse=True)[:8]
    return {"by_category_s": totals, "busy_s": busy, "top_functions": [(name, t) for t, name in top]}


def runner_targets(direct):
    """{runner: {subset: {"got", "target", "met"}}} for the runners that have targets (RUNNER_TARGETS)."""
    return {name: {sub: {"got": rows[sub]["vectors_per_cpu_s"], "target": target,
                         "met": rows[sub]["vectors_per_cpu_s"] >= target}
                   for sub, target in RUNNER_TARGETS[name].items()}
            for name, rows in direct.items() if name in RUNNER_TARGETS}


def git_commit(root):
    p = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    return p.stdout.strip() or "unknown"


def machine():
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), "?")
    return f"{os.cpu_count()} cores ({cpu}), {platform.platform()}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runners", default=",".join(known_runners(ROOT / "runners")),
                    help="comma-separated (default: every runners/*/runner.json)")
    ap.add_argument("--reps", type=int, default=3, help="timed repetitions of each measurement (3)")
    ap.add_argument("--copies", type=int, default=10, help="size of the big synthetic corpus (10x)")
    ap.add_argument("--quick", action="store_true", help="skip the harness at 10x (the slowest part)")
    ap.add_argument("--out", default=str(BENCH / "out"))
    ap.add_argument("--against", metavar="DIR", help="an older checkout measured alongside (interleaved)")
    args = ap.parse_args()
    runners = args.runners.split(",")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    build_prerequisites(runners)
    res = {"date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), "machine": machine()}
    print(f"verify speed, {res['date']}, {res['machine']}")

    with tempfile.TemporaryDirectory(prefix="verify-speed-") as tmp:
        tmp = Path(tmp)
        # 1. warm make verify: one untimed run brings builds up to date, then --reps timed runs.
        verify = ["make", "--no-print-directory", "verify", f"RUNNERS={args.runners}", f"OUT={tmp / 'verify-out'}"]
        env = {k: v for k, v in os.environ.items() if not k.startswith("MAKE") and k != "MFLAGS"}
        trees = {"new": ROOT, **({"old": Path(args.against).resolve()} if args.against else {})}
        for tree in trees.values():
            timed(verify, cwd=tree, env=env)
        runs = {name: [] for name in trees}
        for _ in range(args.reps):      # interleaved: new, old, new, old, ...
            for name, tree in trees.items():
                runs[name].append(timed_cpu(verify, cwd=tree, env=env))
        if args.against:
            old = runs["old"]
            res["against"] = {"root": str(trees["old"]), "commit": git_commit(trees["old"]),
                              "verify": summary([r[0] for r in old]), "verify_cpu": summary([r[1] for r in old]),
                              "verify_exit": sorted({r[2] for r in old}), "direct": {}}
            print(f"warm make verify of {trees['old']} ({res['against']['commit']}): "
                  f"{fmt_seconds(res['against']['verify'])}, CPU {fmt_seconds(res['against']['verify_cpu'])}")
        runs = runs["new"]
        res["commit"] = git_commit(ROOT)
        res["verify"], res["verify_cpu"] = summary([r[0] for r in runs]), summary([r[1] for r in runs])
        res["verify_exit"] = sorted({r[2] for r in runs})
        print(f"warm make verify: {fmt_seconds(res['verify'])}, CPU {fmt_seconds(res['verify_cpu'])}; exit status "
              f"{res['verify_exit']} (the time counts either way)")

        # 2. the floor
        floors = {name: argv for name, argv in floor_commands("vectors").items() if name in runners}
        res["floor_each"], res["floor_each_cpu"] = {}, {}
        for n, a in floors.items():
            runs = [timed_cpu(a, cwd=ROOT) for _ in range(args.reps)]
            res["floor_each"][n], res["floor_each_cpu"][n] = summary([r[0] for r in runs]), summary([r[1] for r in runs])
        res["floor"] = summary([timed_together(list(floors.values()), cwd=ROOT)[0] for _ in range(args.reps)])
        res["floor_cpu"] = sum(s["median"] for s in res["floor_each_cpu"].values())
        res["ratio"] = res["verify"]["median"] / res["floor"]["median"]
        res["ratio_cpu"] = res["verify_cpu"]["median"] / res["floor_cpu"]
        if args.against:
            a = res["against"]
            a["ratio"] = a["verify"]["median"] / res["floor"]["median"]
            a["ratio_cpu"] = a["verify_cpu"]["median"] / res["floor_cpu"]
        for n, s in res["floor_each"].items():
            print(f"  floor {n:6}: {fmt_seconds(s)}, CPU {res['floor_each_cpu'][n]['median']:.2f} s")
        print(f"floor (all started at once): {fmt_seconds(res['floor'])}; "
              f"sum of them alone: {sum(s['median'] for s in res['floor_each'].values()):.2f} s; "
              f"CPU {res['floor_cpu']:.2f} s")
        print(f"ratio verify / floor = {res['ratio']:.1f} wall, {res['ratio_cpu']:.1f} CPU (stretch goal <= {RATIO_GOAL})")
        if args.against:
            print(f"  the older tree ({res['against']['commit']}): ratio {res['against']['ratio']:.1f} wall, "
                  f"{res['against']['ratio_cpu']:.1f} CPU")

        # 3. throughput
        sizes = sorted({1, 3, args.copies})
        corpora = {k: make_corpus(ROOT / "vectors", tmp / f"corpus-{k}x", k) for k in sizes}
        requests = {(k, sub): tmp / f"requests-{k}x-{sub}.jsonl" for k in sizes for sub in SUBSETS}
        counts = {k: request_files(corpora[k], requests[k, "all"], requests[k, "small"]) for k in sizes}
        configs = {tree: {c.name: c for c in resolve(runners, root / "runners", {})} for tree, root in trees.items()}
        res["sizes"] = counts
        res["direct"], res["via_harness"] = {}, {}
        for name in runners:
            for sub in SUBSETS:
                points = {tree: ([], [], {}) for tree in trees}
                for k in sizes:
                    for tree in trees:      # the older tree's runner right after this one's, at each size
                        wall, cpu, answers = runner_direct(configs[tree][name], requests[k, sub], args.reps)
                        if answers != counts[k][sub]["ops"] + 1:
                            raise SystemExit(f"{name} ({tree}): {answers} answers to {counts[k][sub]['ops'] + 1} "
                                             f"requests ({k}x, {sub})")
                        wall_points, cpu_points, row = points[tree]
                        row[k], row[f"cpu{k}"] = wall, cpu
                        wall_points.append((k, wall["median"]))
                        cpu_points.append((k, cpu["median"]))
                for tree, (wall_points, cpu_points, row) in points.items():
                    per_copy, startup = slope(wall_points)
                    per_copy_cpu, startup_cpu = slope(cpu_points)
                    one = counts[1][sub]
                    row.update(vectors_per_s=per_copy * one["vectors"], ops_per_s=per_copy * one["ops"],
                               mb_per_s=per_copy * one["mb"], startup_s=startup,
                               vectors_per_cpu_s=per_copy_cpu * one["vectors"], startup_cpu_s=startup_cpu)
                    into = res["direct"] if tree == "new" else res["against"]["direct"]
                    into.setdefault(name, {})[sub] = row
                    print(f"runner alone {name:6} {sub:5}{'' if tree == 'new' else ' (older tree)'}: "
                          + ", ".join(f"{k}x {row[k]['median']:.2f} s" for k in sizes)
                          + f" -> {row['vectors_per_s']:,.0f} vectors/s ({row['ops_per_s']:,.0f} ops/s, "
                          f"{row['mb_per_s']:.0f} MB/s of requests), start-up {startup:.2f} s; per CPU second "
                          f"{row['vectors_per_cpu_s']:,.0f} vectors (CPU at " +
                          ", ".join(f"{k}x {row[f'cpu{k}']['median']:.2f} s" for k in sizes) + ")")
        big = [args.copies] if not args.quick else []
        for name in runners:
            row = {}
            for k in [1, *big]:
                row[k], row[f"cpu{k}"] = harness_run(name, corpora[k], tmp / f"h-{name}", args.reps if k == 1 else 1)
            if big:
                per_copy = (args.copies - 1) / (row[args.copies]["median"] - row[1]["median"])
                per_copy_cpu = (args.copies - 1) / (row[f"cpu{args.copies}"]["median"] - row["cpu1"]["median"])
                row["vectors_per_s"] = per_copy * counts[1]["all"]["vectors"]
                row["ops_per_s"] = per_copy * counts[1]["all"]["ops"]
                row["vectors_per_cpu_s"] = per_copy_cpu * counts[1]["all"]["vectors"]
            res["via_harness"][name] = row
            print(f"through the harness {name:6}: " + ", ".join(f"{k}x {row[k]['median']:.2f} s (CPU "
                                                              f"{row[f'cpu{k}']['median']:.2f} s)" for k in [1, *big]) +
                  (f" -> {row['vectors_per_s']:,.0f} vectors/s ({row['ops_per_s']:,.0f} ops/s), "
                   f"{row['vectors_per_cpu_s']:,.0f} per CPU second" if big else ""))

        # 4. where the time goes
        res["split"] = in_process_split(args.runners, tmp / "split")
        sp = res["split"]
        print(f"one in-process run of all runners (--serial): wall {sp['wall']:.2f} s, harness CPU {sp['harness_cpu']:.2f} s, "
              f"runner CPU {sp['runner_cpu']:.2f} s")
        prof_runner = "cpp" if "cpp" in runners else runners[0]
        res["profile"] = {"runner": prof_runner, **profile_harness(prof_runner, tmp / "profile")}
        busy = res["profile"]["busy_s"]
        print(f"harness profile over '{prof_runner}' (cProfile tottime, profiler overhead included):")
        for k, v in res["profile"]["by_category_s"].items():
            share = f"{100 * v / busy:5.1f} % of busy" if not k.startswith("waiting") else "(idle)"
            print(f"  {k:30} {v:7.2f} s  {share}")

    res["targets"] = runner_targets(res["direct"])
    res["stretch"] = stretch_goals(res)
    (out / "verify-speed.json").write_text(json.dumps(res, indent=1, default=str) + "\n")
    (out / "verify-speed.md").write_text(markdown(res, runners, sizes, args.copies, args.quick))
    print(f"written: {out / 'verify-speed.json'}, {out / 'verify-speed.md'}")
    return outcome(res)


def stretch_goals(res):
    """[{"goal", "got", "met"}]: the ratio and the slowest runner's throughput against their stretch goals."""
    name, slowest = min(((n, r["all"]["vectors_per_cpu_s"]) for n, r in res["direct"].items()), key=lambda x: x[1])
    return [{"goal": f"ratio verify / floor <= {RATIO_GOAL} (wall)", "got": f"{res['ratio']:.1f}",
             "met": res["ratio"] <= RATIO_GOAL},
            {"goal": f"every runner alone >= {THROUGHPUT_GOAL:,} vectors per CPU s",
             "got": f"{slowest:,.0f} ({name}, the slowest)", "met": slowest >= THROUGHPUT_GOAL}]


def outcome(res):
    """Prints the goals, the stretch ones as figures; the exit status: 1 only when a runner missed its target."""
    for g in res["stretch"]:
        print(f"stretch goal {'met' if g['met'] else 'not met (a figure, not a failure)'}: {g['goal']}: {g['got']}")
    missed = 0
    for name, subs in res["targets"].items():
        for sub, t in subs.items():
            missed += not t["met"]
            print(f"{'runner target' if t['met'] else 'RUNNER TARGET MISSED'} {name} {sub}: {t['got']:,.0f} vectors "
                  f"per CPU s, target {t['target']:,} ({'met' if t['met'] else 'missed'})")
    print(f"bench-verify: {missed} runner target(s) missed: exit status 1" if missed else
          "bench-verify: every runner target met (exit status 0; stretch goals above are figures)")
    return 1 if missed else 0


def markdown(res, runners, sizes, copies, quick):
    v, f, vc = res["verify"], res["floor"], res["verify_cpu"]
    lines = [f"Measured {res['date']} on {res['machine']}.", "",
             "| measurement | wall, median | wall, min - max | CPU, median | n |", "|---|---|---|---|---|",
             f"| warm `make verify` ({len(runners)} runners, {res['sizes'][1]['all']['vectors']:,} vectors, "
             f"{res['sizes'][1]['all']['ops']:,} ops each) | {v['median']:.2f} s | {v['min']:.2f} - {v['max']:.2f} s | "
             f"{vc['median']:.2f} s | {v['n']} |"]
    for n, s in res["floor_each"].items():
        lines.append(f"| floor {n}: bare start-up + one corpus parse | {s['median']:.2f} s | "
                     f"{s['min']:.2f} - {s['max']:.2f} s | {res['floor_each_cpu'][n]['median']:.2f} s | {s['n']} |")
    lines.append(f"| floor, all at once | {f['median']:.2f} s | {f['min']:.2f} - {f['max']:.2f} s | "
                 f"{res['floor_cpu']:.2f} s | {f['n']} |")
    a = res.get("against")
    if a:
        lines.append(f"| warm `make verify` of the older tree ({a['commit']}), interleaved with the above | "
                     f"{a['verify']['median']:.2f} s | {a['verify']['min']:.2f} - {a['verify']['max']:.2f} s | "
                     f"{a['verify_cpu']['median']:.2f} s | {a['verify']['n']} |")
    lines += ["", f"**Ratio verify / floor: {res['ratio']:.1f} wall, {res['ratio_cpu']:.1f} CPU** (stretch goal <= {RATIO_GOAL})"
              + (f"; the older tree ({a['commit']}): {a['ratio']:.1f} wall, {a['ratio_cpu']:.1f} CPU." if a else "."),
              "", f"Throughput (slope over {', '.join(f'{k}x' for k in sizes)} copies of the corpus, so start-up drops "
              "out; 'small' = the ops whose request line is at most 1 KiB; 'per CPU s' uses the runner's CPU time, "
              "which load from other processes distorts least):", "",
              "| runner | alone, all: wall s at " + "/".join(f"{k}x" for k in sizes) + " | alone, all: vectors/s (ops/s, "
              "MB/s) | alone, all: vectors per CPU s | alone, small: vectors/s (per CPU s) | via harness: wall s at 1x" +
              ("" if quick else f"/{copies}x | via harness: vectors/s (per CPU s)") + " |",
              "|---" * (6 if quick else 7) + "|"]
    for n in runners:
        d, sm, h = res["direct"][n]["all"], res["direct"][n]["small"], res["via_harness"][n]
        cells = ["/".join(f"{d[k]['median']:.2f}" for k in sizes),
                 f"{d['vectors_per_s']:,.0f} ({d['ops_per_s']:,.0f}, {d['mb_per_s']:.0f})",
                 f"{d['vectors_per_cpu_s']:,.0f}",
                 f"{sm['vectors_per_s']:,.0f} ({sm['vectors_per_cpu_s']:,.0f})",
                 f"{h[1]['median']:.2f}" + ("" if quick else f"/{h[copies]['median']:.2f}")]
        if not quick:
            cells.append(f"{h['vectors_per_s']:,.0f} ({h['vectors_per_cpu_s']:,.0f})")
        lines.append(f"| {n} | " + " | ".join(cells) + " |")
    if a:
        lines += ["", f"Runners alone, vectors per CPU second, older tree ({a['commit']}) -> this one "
                  f"({res['commit']}), each pair measured back to back:", "",
                  "| runner | all | small |", "|---|---|---|"]
        for n in runners:
            lines.append(f"| {n} | " + " | ".join(
                f"{a['direct'][n][sub]['vectors_per_cpu_s']:,.0f} -> {res['direct'][n][sub]['vectors_per_cpu_s']:,.0f}"
                for sub in SUBSETS) + " |")
    sp, pr = res["split"], res["profile"]
    lines += ["", f"One in-process run of all runners: wall {sp['wall']:.2f} s, harness CPU {sp['harness_cpu']:.2f} s "
              f"(one Python process), runner CPU {sp['runner_cpu']:.2f} s.", "",
              f"Harness profile over `{pr['runner']}` (cProfile, tottime by module):", "",
              "| where | seconds | share of busy |", "|---|---|---|"]
    for k, t in pr["by_category_s"].items():
        lines.append(f"| {k} | {t:.2f} | " + ("-" if k.startswith("waiting") else f"{100 * t / pr['busy_s']:.0f} %") + " |")
    lines += ["", "Top harness functions (tottime): " +
              "; ".join(f"{name} {t:.2f} s" for name, t in pr["top_functions"])]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
