"""make fuzz: /usr/bin/python3 -m fuzz --runners <runners> --values 20000 --seed 1 --seconds 300 --out out/fuzz,
<runners> being every runner with a runners/<name>/runner.json, comma-separated (RUNNERS=... picks others, as for
make verify).

Hypothesis draws batches of typed values (every type and era of schema/registry.json, weighted to boundaries);
each batch goes pipelined to every runner and is checked as fuzz/check.py says. A disagreement is shrunk by
Hypothesis to one minimal value and written to OUT/regressions/<hash>.yaml as a case source for
generator/sources/. Runs in seeded chunks of examples until --values values were checked or --seconds passed.
Exit status: 0 nothing found, 1 a finding was written, 2 usage or configuration errors.
"""

import argparse
import json
import math
import sys
import time
from pathlib import Path

from hypothesis import HealthCheck, Verbosity, given, seed as hypothesis_seed, settings
from hypothesis.configuration import set_hypothesis_home_dir

from fuzz import batches, check, regression
from fuzz.pool import Pool
from harness.api import (FAULTS, REPO_ROOT, SECONDS, ConfigError, StartError, compact, load_schema, number,
                         parse_overrides, resolve, run_threads)

CHUNK = 50                  # examples per seeded Hypothesis run


class Disagreement(AssertionError):
    pass


class ShrinkBudgetSpent(BaseException):
    """Raised through Hypothesis (which re-raises BaseException at once) to end a shrink that takes too long."""


def parser():
    p = argparse.ArgumentParser(prog="python3 -m fuzz", description=__doc__.splitlines()[0])
    p.add_argument("--runners", required=True, help="comma-separated runner names (runners/<name>/runner.json)")
    p.add_argument("--values", type=number(int, 1, 10**9), default=20000, help="values to check, each with every runner (20000)")
    p.add_argument("--seconds", type=SECONDS, default=600, help="stop starting new chunks after this long (600)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--batch", type=number(int, 1, 10_000), default=64, help="largest batch (values per example, default 64)")
    p.add_argument("--out", default="out/fuzz", help="output directory (default out/fuzz)")
    p.add_argument("--command", action="append", default=[], metavar="NAME=SHELL-WORDS",
                   help="run runner NAME with this command instead of its runner.json (repeatable)")
    p.add_argument("--runners-dir", default=str(REPO_ROOT / "runners"))
    p.add_argument("--timeout", type=SECONDS, default=10.0, help="per-request timeout in seconds (10)")
    p.add_argument("--window", type=number(int, 1, 1024), default=64, help="requests in flight per runner (64)")
    p.add_argument("--shrink-seconds", type=SECONDS, default=120,
                   help="end shrinking after this long and write the smallest failure so far (120)")
    p.add_argument("--strict", action="store_true", help="tolerate no known library limit (fuzz/limits.py)")
    return p


def main(argv=None, stdout=None):
    stdout = stdout or sys.stdout
    box = []
    run_threads([lambda: box.append(_main(argv, stdout))])   # deep values recurse through judging
    return box[0] if box else 3


def _main(argv, stdout):
    try:
        args = parser().parse_args(argv)
    except SystemExit as e:     # argparse's usage errors (exit 2) and --help (0); this is not the main thread
        return e.code
    say = lambda text="": print(text, file=stdout, flush=True)  # noqa: E731
    try:
        names = [n.strip() for n in args.runners.split(",") if n.strip()]
        configs = resolve(names, args.runners_dir, parse_overrides(args.command))
    except ConfigError as e:
        say(f"fuzz: {e}")
        return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    set_hypothesis_home_dir(str(out / ".hypothesis"))     # its unicode cache goes there, not into the work tree
    version = load_schema("registry.json")["corpus_version"]
    try:
        pool = Pool(configs, version, args.timeout, 3 * args.timeout, args.window, out)
    except StartError as e:
        say(f"fuzz: a runner did not start: {e}")
        return 2
    stats = {"values": 0, "refusals": 0, "requests": 0, "examples": 0}
    state = {"last": None, "first_failure": None, "flaky": []}

    def prop(batch):
        if state["first_failure"] and time.monotonic() - state["first_failure"] > args.shrink_seconds:
            raise ShrinkBudgetSpent()
        failures, requests = check.check(pool, batch, args.strict)
        if any(f.outcome.verdict in FAULTS for f in failures):
            # A crash, timeout or protocol error is re-run before Hypothesis shrinks it: one that does not repeat
            # is the runner being flaky, not a value that breaks it (shrinking would chase an unrelated value).
            again, more = check.check(pool, batch, args.strict)
            requests += more
            repeated = {(f.index, f.runner, f.op) for f in again}
            flaky = [f for f in failures if f.outcome.verdict in FAULTS and (f.index, f.runner, f.op) not in repeated]
            state["flaky"] += [(batch[f.index], f) for f in flaky]
            failures = [f for f in failures if f not in flaky]
        stats["examples"] += 1
        stats["values"] += len(batch)
        stats["requests"] += requests
        stats["refusals"] += sum(1 for _, _, kind in batch if kind == "reject")
        if failures:
            state["last"] = (batch, failures)     # while shrinking, the last failure is the smallest so far
            state["first_failure"] = state["first_failure"] or time.monotonic()
            raise Disagreement(f"{len(failures)} failing ops")

    started = time.monotonic()
    finding = None
    chunk = 0
    try:
        while stats["values"] < args.values and time.monotonic() - started < args.seconds and finding is None:
            per_example = stats["values"] / stats["examples"] if stats["examples"] else args.batch / 2
            examples = max(1, min(CHUNK, math.ceil((args.values - stats["values"]) / per_example)))
            test = given(batches.batches(args.batch))(prop)
            test = settings(max_examples=examples, database=None, deadline=None, derandomize=False,
                            suppress_health_check=list(HealthCheck), verbosity=Verbosity.quiet,
                            print_blob=False)(test)
            test = hypothesis_seed(args.seed * 1_000_003 + chunk)(test)
            state["last"] = None
            try:
                test()
            except (Exception, ShrinkBudgetSpent) as e:   # the shrunk Disagreement, Hypothesis's Flaky, ...
                if state["last"] is None:
                    raise
                finding = (chunk, e)
                if isinstance(e, ShrinkBudgetSpent):
                    say(f"fuzz: shrinking stopped after {args.shrink_seconds:g} s; writing the smallest failure")
            chunk += 1
    finally:
        elapsed = time.monotonic() - started
        pool.close()

    runners = len(configs)
    summary = {"seed": args.seed, "runners": names, "values": stats["values"], "must_refuse": stats["refusals"],
               "requests": stats["requests"], "examples": stats["examples"], "seconds": round(elapsed, 2),
               "values_per_second": round(stats["values"] / elapsed, 1),
               "value_runner_pairs_per_second": round(stats["values"] * runners / elapsed, 1),
               "requests_per_second": round(stats["requests"] / elapsed, 1),
               "restarts": pool.restarts, "regressions": [],
               "flaky": [{"runner": f.runner, "op": f.op, "era": element[0], "value": compact(element[1]),
                          "outcome": f.outcome.verdict, "detail": f.outcome.detail} for element, f in state["flaky"]]}
    if finding:
        summary["regressions"] = write_finding(state["last"], args.seed, version, out, say)
    (out / "fuzz.json").write_text(json.dumps(summary, indent=1) + "\n")
    say(f"fuzz: {stats['values']} values ({stats['refusals']} must-refuse) x {runners} runners "
        f"({', '.join(names)}), seed {args.seed}, {stats['requests']} requests in {elapsed:.1f} s")
    say(f"throughput: {summary['values_per_second']} values/s, each through every runner = "
        f"{summary['value_runner_pairs_per_second']} value x runner/s ({summary['requests_per_second']} requests/s)")
    for element, f in state["flaky"]:
        say(f"FLAKY {f.runner} {f.op}: {f.outcome.verdict}: {f.outcome.detail} (era {element[0]}, value "
            f"{compact(element[1])}); the same request did not fail again: not written as a regression")
    if finding:
        say(f"FAIL: {len(summary['regressions'])} regression case(s) written (review, then move into "
            f"generator/sources/)")
        return 1
    if state["flaky"]:
        say(f"FAIL: {len(state['flaky'])} fault(s) that did not repeat: a flaky runner (fuzz.json 'flaky')")
        return 1
    if stats["values"] < args.values:
        # The budget is a bound, not a licence to check less: a run that could not reach --values says so.
        say(f"FAIL: only {stats['values']} of {args.values} values checked within --seconds {args.seconds:g}")
        return 1
    say("0 disagreements")
    return 0


def write_finding(last, seed, version, out, say):
    batch, failures = last
    pairs = check.vectors(batch)
    written = []
    for index in sorted({f.index for f in failures})[:1]:   # the minimal batch's first failing value
        era, value, _ = batch[index]
        mine = [f for f in failures if f.index == index]
        vector, cut = pairs[index]
        say(f"FINDING (shrunk batch of {len(batch)}): era {era}, value {compact(value)}")
        for f in mine:
            say(f"  {f.runner} {f.op}: {f.outcome.verdict}: {f.outcome.detail}")
            for line in f.outcome.diagnosis[:12]:
                say(f"      {line}")
        src = regression.source(era, value, vector, cut, mine, seed, version)
        path = out / "regressions" / f"{regression.short_hash(era, value)}.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(regression.dump(src), encoding="utf-8")
        say(f"written: {path}")
        written.append(str(path))
    return written


if __name__ == "__main__":
    sys.exit(main())
