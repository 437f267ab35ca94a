"""Median and spread of repeated measurements (both benchmarks report these, never a single run)."""
import resource
import statistics
import subprocess
import time


def summary(samples):
    """{"median", "min", "max", "spread_pct", "n"}: spread is (max - min) / median in percent."""
    med = statistics.median(samples)
    return {"median": med, "min": min(samples), "max": max(samples),
            "spread_pct": 100.0 * (max(samples) - min(samples)) / med if med else 0.0, "n": len(samples)}


def fmt_seconds(s):
    return f"{s['median']:.2f} s (min {s['min']:.2f}, max {s['max']:.2f}, n={s['n']})"


def timed(argv, cwd=None, stdin=None, env=None):
    """Wall seconds of one command, its exit status and stdout (stderr is dropped)."""
    t0 = time.perf_counter()
    p = subprocess.run(argv, cwd=cwd, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    return time.perf_counter() - t0, p.returncode, p.stdout


def timed_cpu(argv, cwd=None, stdin=None, env=None):
    """(wall seconds, CPU seconds of the command and its waited-for children, exit status, stdout). CPU time is
    what a loaded shared machine distorts least; wall time is what a user waits."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall, code, out = timed(argv, cwd=cwd, stdin=stdin, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), code, out


def timed_together(commands, cwd=None):
    """Wall seconds for several commands started at once (as the harness starts its runners) until the last ends."""
    t0 = time.perf_counter()
    procs = [subprocess.Popen(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
             for argv in commands]
    codes = [p.wait() for p in procs]
    return time.perf_counter() - t0, codes
