"""Claimed capabilities: a deliberately half-done runner (the Python runner claiming only era 3.0 and no Binary
Tuples) passes with no expected-failure entries; everything outside its claims is 'unclaimed', counted in the
closing line, the report, JUnit and the badge; --require makes a missing capability fail the run."""

import json
import xml.etree.ElementTree as ET

from harness_fixtures.harness_helpers import PY, REPO, FIXTURES, run

from dashboard.__main__ import main as dashboard_main

HALF_DONE = f"half-done={PY} -B {FIXTURES / 'half_done_runner.py'}"
# Era 3.0 MessagePack vectors (claimed), plain MessagePack-era ints and Binary Tuple ints (both unclaimed).
SLICE = ["-k", "ignite.3.0.uuid.*", "-k", "int.fixint.*", "-k", "bt.int.tuple.int8.*"]


def half_done(tmp_path, *args):
    return run(tmp_path, *SLICE, *args, runners="half-done", commands=[HALF_DONE], corpus=REPO / "vectors")


def test_half_done_runner_passes_with_unclaimed_counted_everywhere(tmp_path):
    r = half_done(tmp_path)
    assert r.code == 0, r.stdout + r.stderr
    verdicts = r.verdicts()
    claimed = {k: v for k, v in verdicts.items() if k[0].startswith("ignite.3.0.")}
    unclaimed = {k: v for k, v in verdicts.items() if not k[0].startswith("ignite.3.0.")}
    assert claimed and set(claimed.values()) <= {"pass", "info"}
    assert unclaimed and set(unclaimed.values()) == {"unclaimed"}
    n = len(unclaimed)
    # The closing line, one grouped line per reason, and nothing to add to an expected-failures file.
    closing = next(line for line in r.stdout.splitlines() if line.startswith("half-done ("))
    assert closing.endswith(f"0 fail, {n} unclaimed") or f", {n} unclaimed" in closing
    assert "UNCLAIMED half-done: " in r.stdout and "not claimed: runner does not support era 'msgpack'" in r.stdout
    assert "not claimed: runner does not support format 'binary-tuple'" in r.stdout
    assert "add:" not in r.stdout
    assert r.last_line == f"{len(claimed)} passed, 0 failed, {n} unclaimed"
    # Report, schema-valid, and its totals.
    assert r.report["totals"]["unclaimed"] == n and r.report["totals"]["failed"] == 0
    assert r.report["runners"][0]["counts"]["unclaimed"] == n
    assert r.report["runners"][0]["unmet_requirements"] == []
    # JUnit: skipped, not failures.
    suite = ET.parse(r.out / "junit.xml").getroot().find("testsuite")
    assert suite.get("failures") == "0" and suite.get("errors") == "0" and int(suite.get("skipped")) == n
    # The badge and summary name the unclaimed count.
    assert dashboard_main(["--report", str(r.out / "report.json"), "--corpus", str(REPO / "vectors"),
                           "--out", str(tmp_path / "dash")]) == 0
    badge = json.loads((tmp_path / "dash" / "badges" / "half-done.json").read_text())
    assert badge["message"] == f"{len(claimed)}/{len(verdicts)} pass, {n} unclaimed"
    summary = (tmp_path / "dash" / "summary.md").read_text()
    assert f"{n} unclaimed" in summary and "✅ pass (part unclaimed)" in summary


def test_require_turns_a_missing_capability_into_a_failure(tmp_path):
    r = half_done(tmp_path, "--require", "era=3.0,format=binary-tuple")
    assert r.code == 1
    assert ("UNMET half-done: --require format=binary-tuple: the runner does not claim format 'binary-tuple' "
            "in its start answer's capabilities") in r.stdout
    assert "era=3.0" not in r.stdout.split("UNMET", 1)[1].splitlines()[0]
    assert "1 unmet requirement" in r.stdout
    assert r.report["runners"][0]["unmet_requirements"] == ["format=binary-tuple"]
    assert r.report["totals"]["failed"] == 1
    assert half_done(tmp_path, "--require", "era=3.0,op=encode").code == 0


def test_require_refuses_unknown_keys_and_values(tmp_path):
    r = half_done(tmp_path, "--require", "format=binary-tupel")
    assert r.code == 2 and "unknown format 'binary-tupel' (known: msgpack, binary-tuple" in r.stderr
    r = half_done(tmp_path, "--require", "lang=ruby")
    assert r.code == 2 and "KEY one of era, format, op" in r.stderr


def test_require_star_means_every_value_the_protocol_schema_knows(tmp_path):
    from harness import capabilities
    formats = json.loads((REPO / "schema" / "protocol.schema.json").read_text())["$defs"]["format"]["enum"]
    assert capabilities.parse(["format=*"]) == [("format", f) for f in formats]
    assert capabilities.parse(["format=msgpack,format=*"]) == [("format", f) for f in formats]
    # The half-done runner claims only MessagePack: every other format is unmet.
    r = half_done(tmp_path, "--require", "format=*")
    assert r.report["runners"][0]["unmet_requirements"] == [f"format={f}" for f in formats if f != "msgpack"]
    assert r.code == 1
