"""Shared by the tests/test_harness_*.py files: run the harness in-process against the fixture corpus."""

import io
import json
import os
import shlex
import sys
import time
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent
REPO = FIXTURES.parent.parent
CORPUS = FIXTURES / "corpus"
ORACLE = FIXTURES / "oracle_runner.py"
PY = "/usr/bin/python3"
# Generous bounds on wall time: a loaded 2-core machine may stall a runner or the harness for seconds, and a test
# must not turn that into a verdict. Tests that need a timeout to fire give the option a small value themselves;
# how fast the harness is belongs to bench/ (bench/hostile_speed.py), not to the tests.
PATIENCE = 60       # --timeout and --start-timeout of run(), and the bound of wait_until()
HUNG = 600          # seconds before a process that should have ended is called hung (a guard, not a goal)

if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from harness import cli, ops  # noqa: E402
from harness.corpus import load  # noqa: E402


class Run:
    def __init__(self, code, stdout, stderr, out):
        self.code, self.stdout, self.stderr, self.out = code, stdout, stderr, out
        path = out / "report.json"
        self.report = json.loads(path.read_text()) if path.exists() else None

    def verdicts(self, runner=None):
        """{(vector, op): verdict} for one runner (the only one by default)."""
        return {(v["vector"], v["op"]): v["verdict"] for v in self.report["verdicts"]
                if runner is None or v["runner"] == runner}

    def record(self, vector, op, runner=None):
        return next(v for v in self.report["verdicts"]
                    if v["vector"] == vector and v["op"] == op and (runner is None or v["runner"] == runner))

    @property
    def last_line(self):
        return self.stdout.rstrip("\n").splitlines()[-1]


def oracle_command(*flags, name="oracle", corpus=CORPUS):
    words = [PY, str(ORACLE), "--corpus", str(corpus), "--name", name, *map(str, flags)]
    return f"{name}=" + " ".join(shlex.quote(w) for w in words)


def run(tmp_path, *args, runners="oracle", commands=None, corpus=CORPUS, timeout=PATIENCE, runners_dir=None):
    """Runs 'verify' with the oracle (or the given --command values); returns a Run. --start-timeout is always
    PATIENCE (args may set it again: the last one counts)."""
    out = tmp_path / "out"
    argv = ["verify", "--corpus", str(corpus), "--out", str(out), "--timeout", str(timeout),
            "--start-timeout", str(PATIENCE)]
    if runners:
        argv += ["--runners", runners]
    for c in commands if commands is not None else [oracle_command()]:
        argv += ["--command", c]
    argv += ["--runners-dir", str(runners_dir or tmp_path / "no-runners")]
    argv += list(args)
    stdout, stderr = io.StringIO(), io.StringIO()
    code = cli.main(argv, stdout, stderr)
    return Run(code, stdout.getvalue(), stderr.getvalue(), out)


def all_keys(corpus=CORPUS):
    return {op.key for op in ops.plan(load(corpus).vectors)}


def processes_mentioning(text):
    """Pids of the processes with text in their command line."""
    found = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    if text.encode() in f.read():
                        found.append(int(pid))
            except OSError:
                pass
    return found


def wait_until(condition, what, bound=PATIENCE, every=0.05):
    """Polls condition() until it returns something true, and returns that; fails only after bound seconds (a
    loaded machine is slow, not wrong)."""
    deadline = time.monotonic() + bound
    while True:
        value = condition()
        if value:
            return value
        assert time.monotonic() < deadline, f"waited {bound} s for {what}"
        time.sleep(every)
