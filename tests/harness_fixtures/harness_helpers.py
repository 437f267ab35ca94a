"""Shared by the tests/test_harness_*.py files: run the harness in-process against the fixture corpus."""

import io
import json
import os
import shlex
import sys
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent
REPO = FIXTURES.parent.parent
CORPUS = FIXTURES / "corpus"
ORACLE = FIXTURES / "oracle_runner.py"
PY = "/usr/bin/python3"

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


def run(tmp_path, *args, runners="oracle", commands=None, corpus=CORPUS, timeout=1, runners_dir=None):
    """Runs 'verify' with the oracle (or the given --command values); returns a Run."""
    out = tmp_path / "out"
    argv = ["verify", "--corpus", str(corpus), "--out", str(out), "--timeout", str(timeout)]
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
