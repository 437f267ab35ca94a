"""Rerun speed: the two figures that used to be timed asserts in the tests (a loaded machine made them flaky there;
the tests keep the functional checks: the warm rerun uses the cache, the 10,000 entries all match).

    /usr/bin/python3 bench/rerun_speed.py [--reps 5]

1. A warm `--case ID` rerun with the Python runner (harness and runner, validated-corpus cache warm): CPU time of
   the whole process tree (getrusage of the waited children), median of --reps. Goal: under 1 s (issue 20).
2. 10,000 exact-id expected-failure entries applied to every op of the real corpus (each judged 'fail', so every
   verdict is looked up): CPU time of parse + apply over the same with an empty listing, median of --reps.
   Goal: under 0.5 s.
CPU time, not wall time: what else the machine runs does not decide the figure. Exit status 0 when both goals
are met, else 1.
"""
import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from harness.api import (CorpusScope, Outcome, apply_expectations, build_verdicts, load_corpus,  # noqa: E402
                         open_corpus, parse_expectations, plan_ops)

PY = "/usr/bin/python3"
CASE_GOAL, ENTRIES_GOAL, ENTRIES = 1.0, 0.5, 10000


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def warm_case_rerun(scratch, reps):
    command = [PY, "-m", "harness", "verify", "--runners", "python", "--case", "int.uint64.max", "--no-matrix",
               "--out", str(scratch / "out"), "--cache-dir", str(scratch / "cache")]
    subprocess.run(command, cwd=ROOT, capture_output=True, check=True, timeout=300)     # cold: fills the cache
    figures = []
    for _ in range(reps):
        before = children_cpu()
        p = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)
        figures.append(children_cpu() - before)
        if p.returncode != 0 or "validated before" not in p.stderr:
            sys.exit(f"rerun_speed: the warm rerun failed or did not use the cache:\n{p.stdout}{p.stderr}")
    return figures


def exact_entries(scratch, reps):
    catalog, _ = open_corpus(ROOT / "vectors", scratch / "cache")
    plan = plan_ops(load_corpus(ROOT / "vectors").vectors)
    outcomes = {op.key: Outcome("fail", "x") for op in plan}
    judged = [op for op in plan if op.vector["level"] != "impl"]     # impl-level ops are info, never xfail
    listing = scratch / "expected-failures.txt"
    listing.write_text("".join(f"{op.vector_id}  {op.name}  known\n" for op in judged[:ENTRIES]))
    empty = scratch / "empty.txt"
    empty.write_text("")

    def timed(path):
        verdicts = build_verdicts("r", plan, outcomes)
        t0 = time.process_time()
        entries = parse_expectations(path)
        apply_expectations(entries, verdicts, True, catalog.scope, CorpusScope(catalog))
        return time.process_time() - t0

    return [timed(listing) - timed(empty) for _ in range(reps)], len(plan)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--reps", type=int, default=5, help="timed repeats of each figure (median shown)")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="rerun-speed.") as tmp:
        scratch = Path(tmp)
        case = warm_case_rerun(scratch, args.reps)
        entries, ops_count = exact_entries(scratch, args.reps)
    rows = [(f"warm --case rerun, python runner (harness + runner CPU)", case, CASE_GOAL),
            (f"{ENTRIES:,} exact expected-failure entries over {ops_count:,} verdicts (CPU)", entries, ENTRIES_GOAL)]
    missed = 0
    for what, figures, goal in rows:
        median = statistics.median(figures)
        ok = median < goal
        missed += not ok
        print(f"{what}: {median:.3f} s (min {min(figures):.3f}, max {max(figures):.3f}, {len(figures)} runs); "
              f"goal < {goal} s: {'met' if ok else 'MISSED'}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
