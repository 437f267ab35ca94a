"""The conformance node (spec.md 11.9, harness/node.py, harness/node_run.py): the reference driver passes every node
case; each broken copy of it (drivers/python/broken.json) fails every case written for its bug; a driver that hangs,
floods, sends garbage, never connects or prints too much costs its case a bounded time; an interrupted run leaves a
readable report."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CASES = json.loads((ROOT / "node" / "cases.json").read_text())["cases"]
BROKEN = json.loads((ROOT / "drivers" / "python" / "broken.json").read_text())["broken"]
HOSTILE = ROOT / "tests" / "node_fixtures" / "hostile_driver.py"


def node(*args, timeout=300):
    return subprocess.run([sys.executable, "-m", "harness", "node", "--quiet", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """One run: the reference driver over every case, each broken copy over its own cases."""
    out = tmp_path_factory.mktemp("node")
    started = time.monotonic()
    proc = node("--driver", "python", "--broken", "all", "--out", str(out))
    report = json.loads((out / "report.json").read_text())
    report["wall_seconds"] = time.monotonic() - started
    report["proc"] = proc
    report["out"] = out
    return report


def test_reference_driver_passes_every_case(run):
    mine = [v for v in run["verdicts"] if v["driver"] == "python"]
    assert len(mine) == len(CASES) >= 40
    failed = [(v["case"], v["detail"]) for v in mine if v["verdict"] != "pass"]
    assert not failed, failed


@pytest.mark.parametrize("bug", BROKEN, ids=[b["name"] for b in BROKEN])
def test_each_broken_driver_fails_its_cases(run, bug):
    mine = {v["case"]: v for v in run["verdicts"] if v["driver"] == f"broken-{bug['name']}"}
    assert set(mine) == set(bug["cases"])
    for case in bug["cases"]:
        assert mine[case]["verdict"] == "fail", (bug["name"], case, mine[case]["detail"])
        assert mine[case]["diagnosis"] and mine[case]["wire"], "a failure carries its diagnosis and wire log"


def test_every_pt_rule_has_a_broken_driver_that_a_case_catches(run):
    """No PT-* rule is checked only by cases a wrong client would pass too: for each, a broken copy fails a case
    that cites it."""
    rules = {r["id"] for r in json.loads((ROOT / "schema" / "registry.json").read_text())["rules"]
             if r["id"].startswith("PT-")}
    caught = {r for v in run["verdicts"] if v["driver"].startswith("broken-") and v["verdict"] == "fail"
              for r in v["rules"]}
    assert rules <= caught, sorted(rules - caught)


def test_run_reports_and_exit_status(run, tmp_path):
    assert run["proc"].returncode == 0, run["proc"].stdout + run["proc"].stderr
    assert run["complete"] and all(not s["unexpected"] for s in run["drivers"].values())
    print(f"node suite: {len(run['verdicts'])} verdicts in {run['wall_seconds']:.1f} s")


def test_reports_show_the_wire_log_frame_by_frame(run):
    page = (run["out"] / "node.html").read_text()
    assert "broken-responses-in-order" in page and "node.two.reversed" in page
    assert "request_id" in page and "payload[1].str.payload" in page, "frames are shown labelled field by field"
    junit = (run["out"] / "junit.xml").read_text()
    assert junit.count("<testcase ") == len(run["verdicts"]) and junit.count("<failure ") == sum(
        v["verdict"] == "fail" for v in run["verdicts"])
    journal = [json.loads(x) for x in (run["out"] / "verdicts.jsonl").read_text().splitlines()]
    assert journal[-1] == {"end": "complete"} and len(journal) == len(run["verdicts"]) + 2


def test_every_pt_rule_is_exercised_by_a_passing_case(run):
    rules = {r["id"] for r in json.loads((ROOT / "schema" / "registry.json").read_text())["rules"]
             if r["id"].startswith("PT-")}
    passed = {r for v in run["verdicts"] if v["driver"] == "python" and v["verdict"] == "pass" for r in v["rules"]}
    assert rules <= passed, sorted(rules - passed)


def test_a_broken_replacement_that_no_longer_matches_fails_loudly(tmp_path, monkeypatch):
    from harness import node_run
    spec = {"description": "", "broken": [{"name": "stale", "bug": "x", "cases": ["node.connect.whole"],
                                           "replace": [["text that is not in client.py", "y"]]}]}
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(spec))
    monkeypatch.setattr(node_run, "BROKEN", path)
    with pytest.raises(node_run.DriverError, match="occurs 0 times"):
        node_run.broken_drivers("stale", tmp_path / "out")


HOSTILE_MODES = {"hang": "did not exit", "flood": "flood", "garbage": "not the magic", "silent": "never connected",
                 "chatter": "lines on stdout"}


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    """One run of the five hostile drivers at once over one case whose timeout is cut to 1.5 s."""
    out = tmp_path_factory.mktemp("hostile")
    doc = json.loads((ROOT / "node" / "cases.json").read_text())
    doc["cases"] = [dict(c, timeout_ms=1500) for c in doc["cases"] if c["id"] == "node.table-get.plain-name"]
    (out / "cases.json").write_text(json.dumps(doc))
    args = [a for mode in HOSTILE_MODES for a in ("--driver-cmd", f"{mode}={sys.executable} {HOSTILE} {mode}")]
    started = time.monotonic()
    proc = node(*args, "--jobs", "5", "--cases", str(out / "cases.json"), "--out", str(out / "run"), timeout=60)
    report = json.loads((out / "run" / "report.json").read_text())
    return report, time.monotonic() - started, proc


@pytest.mark.parametrize("mode", HOSTILE_MODES)
def test_a_hostile_driver_costs_its_case_a_bounded_time(hostile, mode):
    report, took, proc = hostile
    (v,) = [v for v in report["verdicts"] if v["driver"] == mode]
    assert v["verdict"] == "fail" and HOSTILE_MODES[mode] in v["detail"] + " ".join(v["diagnosis"]), v["detail"]
    assert v["duration_ms"] < 1500 + 2000 + 1000, v["duration_ms"]      # timeout + the exit grace + slack
    assert took < 15 and proc.returncode == 1


def test_an_interrupted_run_leaves_a_readable_report(tmp_path):
    proc = subprocess.Popen([sys.executable, "-m", "harness", "node", "--quiet", "--driver", "python", "--jobs", "1",
                             "--case", "node.idle.*", "--out", str(tmp_path)], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    journal = tmp_path / "verdicts.jsonl"
    while time.monotonic() < deadline and (not journal.exists() or len(journal.read_text().splitlines()) < 2):
        time.sleep(0.1)
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=30)
    report = json.loads((tmp_path / "report.json").read_text())
    assert not report["complete"] and report["ended"] == "interrupted by SIGINT"
    assert 1 <= len(report["verdicts"]) < 5
    lines = [json.loads(x) for x in journal.read_text().splitlines()]
    assert lines[-1] == {"end": "interrupted by SIGINT"}
    assert proc.returncode == 130
    assert (tmp_path / "junit.xml").read_text().startswith("<?xml")
