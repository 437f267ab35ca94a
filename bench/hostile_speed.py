"""Hostile-runner speed: how long the harness takes to end a run against a runner that is not to be trusted. These
were timed asserts in tests/test_harness_hostile.py, where a loaded machine decided them; the tests keep the
verdicts, the reports and the harness's peak RSS, this measures the time.

    /usr/bin/python3 bench/hostile_speed.py [--reps 3]

Each case is one harness process (tests/harness_fixtures/rss_harness.py, which also gives its peak RSS) over the
test fixture corpus, with the fixture oracle as its runner, told to misbehave:
1. a stdout line without a newline, written forever: cut at the 8 MiB line limit (runners/PROTOCOL.md, Limits);
2. a 32 MiB hex line: the same limit;
3. a 7.5 MiB encode answer (under the limit): judged, diagnosed and annotated;
4. a runner that hangs on its first request after every restart, --timeout 2: given up after 5 (its floor: 10 s);
5. SIGTERM to a run whose runner hangs: from the signal to the harness's exit, the partial report written.
Wall time, because a hang is wall time; median of --reps, with the harness's peak RSS (the tests' bound: 512 MiB)
and the load average, since other work on the machine adds to wall time. Exit status 0 when every goal is met,
else 1.
"""
import argparse
import json
import os
import shlex
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "harness_fixtures"
CORPUS = FIXTURES / "corpus"
PY = "/usr/bin/python3"
ANSWER = 15 << 19       # 7.5 MiB: 1 MiB under the line limit
ONCE = "--once"         # the oracle's fault fires in its first process only (not after the restart)
# (what, oracle flags, harness flags, goal in seconds)
CASES = [
    ("line over the limit, no newline, written forever", ["--hostile", "no-newline", "--hostile-on", "1", ONCE], [],
     30),
    ("32 MiB hex line", ["--hostile", f"huge-hex:{32 << 20}", "--hostile-on", "encode", ONCE], [], 30),
    ("7.5 MiB encode answer, judged", ["--hostile", f"zero-hex:{ANSWER}", "--hostile-on", "encode", ONCE], [], 30),
    ("given up after 5 hangs, --timeout 2", ["--hang-on", "1"], ["--timeout", "2"], 60),
]
SIGNAL_CASE, SIGNAL_GOAL = "SIGTERM to the end of a run whose runner hangs", 10


def harness_argv(scratch, flags, args):
    oracle = [PY, str(FIXTURES / "oracle_runner.py"), "--corpus", str(CORPUS), "--name", "oracle", *flags]
    return [PY, str(FIXTURES / "rss_harness.py"), "verify", "--corpus", str(CORPUS), "--out", str(scratch / "out"),
            "--runners", "oracle", "--runners-dir", str(scratch), "--command", "oracle=" + shlex.join(oracle), *args]


def peak_kib(stderr):
    return int(stderr.strip().splitlines()[-1].split()[1])      # rss_harness.py's last line: "peak-rss-kib N"


def timed_case(scratch, flags, args):
    """(seconds, peak RSS KiB) of one harness run."""
    once = scratch / "fired"
    once.unlink(missing_ok=True)
    flags = [a for f in flags for a in ((f, str(once)) if f == ONCE else (f,))]
    started = time.monotonic()
    p = subprocess.run(harness_argv(scratch, flags, args), capture_output=True, text=True)
    seconds = time.monotonic() - started
    if p.returncode != 1:       # every case ends in a failing verdict
        sys.exit(f"hostile_speed: the harness exited with {p.returncode}, not 1:\n{p.stdout[-2000:]}{p.stderr[-2000:]}")
    return seconds, peak_kib(p.stderr)


def timed_signal(scratch):
    """(seconds from SIGTERM to exit, peak RSS KiB): the runner hangs on request 4, so the run is mid-way."""
    out = scratch / "out"
    journal = out / "verdicts.jsonl"
    journal.unlink(missing_ok=True)
    p = subprocess.Popen(harness_argv(scratch, ["--hang-on", "4"], ["--timeout", "1000"]),
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    while not (journal.exists() and len(journal.read_text().splitlines()) >= 4):    # header + 3 outcomes
        if p.poll() is not None:
            sys.exit(f"hostile_speed: the harness ended before the runner hung:\n{p.stderr.read()[-2000:]}")
        time.sleep(0.05)
    sent = time.monotonic()
    p.send_signal(signal.SIGTERM)
    stderr = p.communicate()[1]
    seconds = time.monotonic() - sent
    if p.returncode != 143 or "interrupted by SIGTERM" not in (out / "report.json").read_text():
        sys.exit(f"hostile_speed: the interrupted run did not end as it should (status {p.returncode}):\n{stderr}")
    return seconds, peak_kib(stderr)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--reps", type=int, default=3, help="timed repeats of each case (median shown)")
    p.add_argument("--json", type=Path, help="also write the figures here")
    args = p.parse_args(argv)
    print(f"hostile_speed: load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores at the start")
    rows = []
    with tempfile.TemporaryDirectory(prefix="hostile-speed.") as tmp:
        scratch = Path(tmp)
        for what, flags, harness_flags, goal in CASES:
            rows.append((what, [timed_case(scratch, flags, harness_flags) for _ in range(args.reps)], goal))
        rows.append((SIGNAL_CASE, [timed_signal(scratch) for _ in range(args.reps)], SIGNAL_GOAL))
    missed, figures = 0, []
    for what, runs, goal in rows:
        seconds = [s for s, _ in runs]
        median, peak = statistics.median(seconds), max(k for _, k in runs) // 1024
        ok = median < goal
        missed += not ok
        figures.append({"case": what, "median_s": round(median, 2), "min_s": round(min(seconds), 2),
                        "max_s": round(max(seconds), 2), "goal_s": goal, "peak_rss_mib": peak, "met": ok})
        print(f"{what}: {median:.2f} s (min {min(seconds):.2f}, max {max(seconds):.2f}, {len(seconds)} runs), "
              f"harness peak RSS {peak} MiB; goal < {goal} s: {'met' if ok else 'MISSED'}")
    print(f"hostile_speed: load average {os.getloadavg()[0]:.1f} at the end")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1) + "\n")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
