"""Benchmark: every runner over the must-reject corpus, one request at a time, with its peak RSS and its
slowest vector. The goals (issue: hostile corpus) are a peak RSS under 256 MiB per runner and no vector
slower than 1 s; missing one fails the run.

    /usr/bin/python3 tools/bench_hostile.py [--runners python,java] [-k GLOB] [--out DIR]
    /usr/bin/python3 tools/bench_hostile.py --command 'my-client=./build/runner' [--corpus DIR]   (your runner)

This measures; it does not judge. Whether each answer has the right error class is `make verify`'s job
(the harness); the table only counts answers that are not the expected class, as a hint.

How it measures: the runner is started as the harness starts it (runners/<name>/runner.json, cwd there).
Requests go one at a time, so each round trip (request line written -> response line read) is that
vector's time, parsing the request's hex included. Peak RSS is the kernel's high-water mark (VmHWM in
/proc/<pid>/status), summed over the runner's process tree (a wrapper script and its JVM count
together) and sampled every 20 ms while the runner lives; the high-water mark cannot miss a peak between
samples. Exit status: 0 all goals met, 1 a goal missed or a runner died or hung, 2 usage errors.
"""

import argparse
import fnmatch
import json
import os
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from harness.api import (DEFAULT_CACHE, EOF, SECONDS, TIMEOUT, ConfigError, CorpusError, LineTooLong,  # noqa: E402
                         Op, RunnerProcess, StderrLog, known_runners, number, open_corpus, parse_overrides,
                         resolve)

MIB = 1 << 20
SAMPLE_SECONDS = 0.02
RETIME = 10


def process_tree(root_pid: int) -> list[int]:
    """root_pid and every descendant, from /proc/<pid>/stat parent ids."""
    children = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as f:
                    stat = f.read()
            except OSError:
                continue
            ppid = int(stat[stat.rindex(b")") + 2:].split()[1])   # the command name may hold spaces
            children.setdefault(ppid, []).append(int(entry))
    tree, todo = [], [root_pid]
    while todo:
        pid = todo.pop()
        tree.append(pid)
        todo += children.get(pid, [])
    return tree


def hwm_bytes(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


class PeakSampler:
    """Samples the tree's summed VmHWM until stopped; keeps each pid's last value (a pid that exits keeps
    the high-water mark it had at the last sample)."""

    def __init__(self, pid: int):
        self.pid, self.per_pid, self._stop = pid, {}, threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def sample(self) -> int:
        for pid in process_tree(self.pid):
            hwm = hwm_bytes(pid)
            if hwm:
                self.per_pid[pid] = max(self.per_pid.get(pid, 0), hwm)
        return self.peak

    @property
    def peak(self) -> int:
        return sum(self.per_pid.values())

    def _run(self):
        while not self._stop.wait(SAMPLE_SECONDS):
            self.sample()

    def stop(self) -> int:
        self.sample()
        self._stop.set()
        self._thread.join()
        return self.peak


class Bench:
    def __init__(self, config, corpus_version: str, timeout: float, log):
        self.config, self.corpus_version, self.timeout, self.log = config, corpus_version, timeout, log
        self.proc = self.sampler = None
        self.idle_rss = 0
        self.peak_rss = 0
        self.problems = []      # (vector id, what happened): crashes, timeouts, protocol errors

    def start(self):
        self.proc = RunnerProcess(self.config.argv, self.config.cwd, self.log)
        self.sampler = PeakSampler(self.proc.proc.pid)
        self.proc.send((json.dumps({"cmd": "start", "protocol": 1, "corpus_version": self.corpus_version}) + "\n").encode())
        line = self.proc.read_line(time.monotonic() + 3 * self.timeout)
        if line in (EOF, TIMEOUT):
            raise RuntimeError(f"runner {self.config.name} did not answer start: {self.proc.stderr_text()[-3:]}")
        self.idle_rss = max(self.idle_rss, self.sampler.sample())

    def finish(self):
        if self.proc:
            self.peak_rss = max(self.peak_rss, self.sampler.stop())
            self.proc.send(b'{"cmd":"stop"}\n')
            self.proc.stop()
            self.proc = None

    def decode(self, request_id: int, vector: dict):
        """(seconds, response dict or None)."""
        # The request verify sends for the vector's reject op (a frame's: format, frame and features too).
        request = Op(vector, "reject", "decode", hex=vector["hex"]).request(request_id)
        began = time.monotonic()
        self.proc.send((json.dumps(request) + "\n").encode())
        line = self.proc.read_line(began + self.timeout)
        elapsed = time.monotonic() - began
        if line is TIMEOUT or line is EOF:
            self.problems.append((vector["id"], "timeout" if line is TIMEOUT else "crash: the runner exited"))
            self.proc.kill()
            self.finish()
            self.start()
            return elapsed, None
        if isinstance(line, LineTooLong):
            self.problems.append((vector["id"], f"protocol error: {line.describe()}"))
            self.proc.kill()
            self.finish()
            self.start()
            return elapsed, None
        try:
            return elapsed, json.loads(line)
        except (ValueError, RecursionError):
            self.problems.append((vector["id"], f"protocol error: {line[:80]!r}"))
            return elapsed, None


def run_runner(config, vectors, corpus_version, timeout, log) -> dict:
    bench = Bench(config, corpus_version, timeout, log)
    began = time.monotonic()
    bench.start()
    started = time.monotonic()
    times, wrong = [], []
    try:
        for i, vector in enumerate(vectors):
            elapsed, response = bench.decode(i, vector)
            times.append([elapsed, vector["id"], i])
            answer = None if response is None else (response.get("error") or {}).get("class") or (
                "skipped" if "skipped" in response else "values")
            if response is not None and answer != vector["error"]:
                wrong.append((vector["id"], answer))
        # The slowest few are timed twice more and keep their fastest time: on a loaded machine a
        # scheduling or GC hiccup is not a slow vector, a vector slow three times in a row is.
        for entry in sorted(times, reverse=True)[:RETIME]:
            for _ in range(2):
                entry[0] = min(entry[0], bench.decode(entry[2], vectors[entry[2]])[0])
    finally:
        bench.finish()
    slowest = max(times) if times else (0.0, "-", 0)
    return {"runner": config.name, "vectors": len(vectors), "idle_rss_mib": bench.idle_rss / MIB,
            "peak_rss_mib": bench.peak_rss / MIB, "slowest_ms": slowest[0] * 1000, "slowest_vector": slowest[1],
            "start_s": started - began, "total_s": time.monotonic() - started,
            "slowest": [{"vector": vid, "ms": round(t * 1000, 3)} for t, vid, _ in sorted(times, reverse=True)[:RETIME]],
            "median_ms": sorted(t for t, _, _ in times)[len(times) // 2] * 1000 if times else 0.0,
            "not_expected_class": len(wrong), "not_expected_examples": wrong[:10], "problems": bench.problems}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="tools/bench_hostile.py", description=__doc__.splitlines()[0])
    p.add_argument("--runners", help="comma-separated runner names (default: every runners/<name>/runner.json, "
                                     "or the --command names)")
    p.add_argument("--command", action="append", default=[], metavar="NAME=SHELL-WORDS",
                   help="run runner NAME with this command instead of its runner.json (repeatable): an "
                        "out-of-tree runner, as 'harness verify --command'")
    p.add_argument("--runners-dir", default=str(ROOT / "runners"), help="where runner directories live")
    p.add_argument("--corpus", default=str(ROOT / "vectors"))
    p.add_argument("-k", action="append", default=[], metavar="GLOB", dest="patterns",
                   help="only decode-reject vectors whose id matches (repeatable)")
    p.add_argument("--max-rss-mib", type=number(float, 1, 1 << 20), default=256.0, help="goal: peak RSS per runner (256)")
    p.add_argument("--max-ms", type=number(float, 1, 86_400_000), default=1000.0, help="goal: slowest vector (1000)")
    p.add_argument("--timeout", type=SECONDS, default=10.0, help="a request unanswered this long is a hang (10 s)")
    p.add_argument("--out", default=str(ROOT / "out"), help="writes bench-hostile.json here (default out/)")
    p.add_argument("--cache-dir", default=str(DEFAULT_CACHE),
                   help="the validated-corpus cache `make verify` fills (harness/corpus_cache.py): a corpus that "
                        "passed before is not validated again (default out/.corpus-cache)")
    args = p.parse_args(argv)
    runners_dir = Path(args.runners_dir)
    try:
        commands = parse_overrides(args.command)
        # By default the reference runners: runners/ignite-* wrap the official clients (make verify-official).
        reference = [n for n in known_runners(runners_dir) if not n.startswith("ignite-")]
        names = [n for n in (args.runners.split(",") if args.runners else list(commands) or reference) if n]
        configs = resolve(names, runners_dir, commands)
        catalog, _ = open_corpus(args.corpus, Path(args.cache_dir))
    except (ConfigError, CorpusError) as e:
        print(f"bench: {e}", file=sys.stderr)
        return 2
    # MessagePack and frame must-reject vectors; Binary Tuple vectors (another "format") need a tuple request
    # and are not part of the hostile corpus yet.
    ids = [vid for vid in catalog.ids if not args.patterns or any(fnmatch.fnmatchcase(vid, p) for p in args.patterns)]
    vectors = [v for v in catalog.vectors(ids)
               if v["kind"] == "decode-reject" and v.get("format", "msgpack") in ("msgpack", "frame")]
    if not vectors:
        print("bench: no decode-reject vector selected", file=sys.stderr)
        return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for config in configs:
        with StderrLog(out / f"bench-{config.name}.stderr.log") as log:
            try:
                rows.append(run_runner(config, vectors, catalog.version, args.timeout, log))
            except RuntimeError as e:
                print(f"bench: {e}", file=sys.stderr)
                rows.append({"runner": config.name, "vectors": len(vectors), "failed_to_start": str(e)})
    (out / "bench-hostile.json").write_text(json.dumps({"goals": {"max_rss_mib": args.max_rss_mib, "max_ms": args.max_ms},
                                                        "rows": rows}, indent=1) + "\n")
    return report(rows, args.max_rss_mib, args.max_ms)


def report(rows, max_rss, max_ms) -> int:
    print(f"{'runner':<8} {'vectors':>7} {'idle MiB':>9} {'peak MiB':>9} {'median ms':>9} {'slowest ms':>10}  "
          f"{'slowest vector':<48} {'start s':>7} {'total s':>7} {'not class':>9}")
    missed = []
    for r in rows:
        if "failed_to_start" in r:
            print(f"{r['runner']:<8} did not start: {r['failed_to_start']}")
            missed.append(f"{r['runner']}: did not start")
            continue
        print(f"{r['runner']:<8} {r['vectors']:>7} {r['idle_rss_mib']:>9.1f} {r['peak_rss_mib']:>9.1f} "
              f"{r['median_ms']:>9.3f} {r['slowest_ms']:>10.1f}  {r['slowest_vector']:<48} "
              f"{r['start_s']:>7.2f} {r['total_s']:>7.2f} {r['not_expected_class']:>9}")
        if r["peak_rss_mib"] > max_rss:
            missed.append(f"{r['runner']}: peak RSS {r['peak_rss_mib']:.1f} MiB > {max_rss:g} MiB")
        if r["slowest_ms"] > max_ms:
            missed.append(f"{r['runner']}: {r['slowest_vector']} took {r['slowest_ms']:.0f} ms > {max_ms:g} ms")
        for vid, what in r["problems"]:
            missed.append(f"{r['runner']}: {vid}: {what}")
    for r in rows:
        if r.get("not_expected_class"):
            examples = ", ".join(f"{answer} for {vid}" for vid, answer in r["not_expected_examples"][:3])
            print(f"  note: {r['runner']}: {r['not_expected_class']} answers are not the expected class "
                  f"(make verify judges them), e.g. {examples}")
    for line in missed:
        print(f"GOAL MISSED {line}")
    print(f"goals: peak RSS <= {max_rss:g} MiB per runner, every vector <= {max_ms:g} ms: "
          f"{'met' if not missed else 'MISSED'}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
