"""runners/ignite-dotnet runs the official client's own code: a copy of the upstream .NET client with one planted change
(BinaryTupleCommon.BoolToByte writes 2 for true) is built and run, and the verdicts move exactly where that constant
shows: the BOOLEAN true tuple's encode goes from pass to fail, with the client's byte 02, while its decode (the reader
takes any non-zero byte as true) and the false tuple stay passing. Skipped, naming IGNITE3_SRC, when no upstream source
is available; needs the .NET 10 SDK (make -C runners/ignite-dotnet setup)."""

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
RUNNER = REPO / "runners" / "ignite-dotnet"
PY = "/usr/bin/python3"
DOTNET = "modules/platforms/dotnet"
CONSTANT = "public static sbyte BoolToByte(bool value) => value ? (sbyte) 1 : (sbyte) 0;"
PLANTED = "public static sbyte BoolToByte(bool value) => value ? (sbyte) 2 : (sbyte) 0;"
CASES = ("bt.boolean.tuple.true", "bt.boolean.tuple.false")


def upstream_tree():
    got = subprocess.run([PY, str(REPO / "tools" / "ignite_upstream.py"), "ignite", "--ref", "3.1.0"],
                         capture_output=True, text=True)
    if got.returncode == 3:
        pytest.skip("no apache/ignite-3 source: set IGNITE3_SRC to a checkout (or put ../shared/upstream beside the "
                    "repository); " + got.stderr.strip())
    assert got.returncode == 0, got.stderr
    return Path(got.stdout.strip())


def make(*args, **env):
    if shutil.which("dotnet") is None:
        pytest.skip("the .NET SDK (dotnet) is not installed: make -C runners/ignite-dotnet setup")
    e = dict(os.environ, **env)
    got = subprocess.run(["make", "--no-print-directory", "-C", str(RUNNER), *args], capture_output=True, text=True,
                         env=e, timeout=900)
    assert got.returncode == 0, got.stdout[-3000:] + got.stderr[-3000:]


def verdicts(tmp_path, name, command):
    out = tmp_path / f"out-{name}"
    args = [PY, "-m", "harness", "verify", "--runners", "ignite-dotnet", "--no-matrix", "--out", str(out)]
    for case in CASES:
        args += ["--case", case]
    if command:
        args += ["--command", f"ignite-dotnet={command}"]
    got = subprocess.run(args, cwd=REPO, capture_output=True, text=True, env=dict(os.environ, IGNITE_REF="3.1.0"),
                         timeout=300)
    report = json.loads((out / "report.json").read_text())
    return {(v["vector"], v["op"]): v for v in report["verdicts"]}, got


def test_a_planted_constant_moves_the_verdicts(tmp_path):
    src = upstream_tree()
    # The copy holds what build-client.sh stages: the .NET client and the Java exception classes its generator reads.
    copy = tmp_path / "ignite-3"
    shutil.copytree(src / DOTNET, copy / DOTNET, ignore=shutil.ignore_patterns("bin", "obj", "*.Tests", "*.Benchmarks"))
    for java in (src / "modules").rglob("*Exception.java"):
        target = copy / java.relative_to(src)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(java, target)
    common = copy / DOTNET / "Apache.Ignite/Internal/Proto/BinaryTuple/BinaryTupleCommon.cs"
    text = common.read_text()
    assert text.count(CONSTANT) == 1
    common.write_text(text.replace(CONSTANT, PLANTED))

    make("build", "IGNITE_REF=3.1.0")
    planted_out = tmp_path / "planted"
    make("client", "IGNITE_REF=3.1.0", f"RUNNER_OUT={planted_out}", f"RUNNER_STAGE={tmp_path / 'stage'}", IGNITE3_SRC=str(copy))
    # The adapter as built, with the planted client in place of the real one (the same API: no rebuild needed).
    adapter = tmp_path / "adapter"
    shutil.copytree(RUNNER / "build" / "3.1.0" / "adapter", adapter)
    shutil.copy2(planted_out / "client" / "Apache.Ignite.dll", adapter / "Apache.Ignite.dll")

    plain, _ = verdicts(tmp_path, "plain", None)
    planted, run = verdicts(tmp_path, "planted", str(adapter / "IgniteDotnetAdapter"))

    for key in [("bt.boolean.tuple.true", "encode"), ("bt.boolean.tuple.true", "decode"),
                ("bt.boolean.tuple.false", "encode"), ("bt.boolean.tuple.false", "decode")]:
        assert plain[key]["verdict"] == "pass", (key, plain[key])
    assert planted[("bt.boolean.tuple.true", "encode")]["verdict"] == "fail", run.stdout[-2000:]
    diagnosis = planted[("bt.boolean.tuple.true", "encode")]["diagnosis"]
    assert "first difference at byte offset 2" in diagnosis and any(line.startswith("actual bytes (3): 000102") for line in diagnosis), diagnosis
    for key in [("bt.boolean.tuple.true", "decode"), ("bt.boolean.tuple.false", "encode"), ("bt.boolean.tuple.false", "decode")]:
        assert planted[key]["verdict"] == "pass", (key, planted[key])
