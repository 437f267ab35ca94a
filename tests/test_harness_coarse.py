"""Declared coarse error classes (runners/PROTOCOL.md, capabilities.coarse_classes) and a run that checks nothing.

A runner whose library raises one error for several of the spec's classes declares the family it answers with;
a reject answered with a declared family that is an ancestor of the expected class is 'coarse': not failing,
counted and shown apart from 'pass' (closing line, totals, report.json, JUnit, badge, summary). A declared family
that is no ancestor, or an ancestor the runner did not declare, fails as before. A run in which every verdict is
unclaimed exits 1 and says NOTHING CHECKED on its last line, unless --allow-nothing-checked."""

import json
import xml.etree.ElementTree as ET

import jsonschema
import pytest

from harness_fixtures.harness_helpers import CORPUS, REPO, oracle_command, run

from harness.judge import ancestor
from harness.runner_session import coarse_problem

from dashboard.__main__ import main as dashboard_main

SCHEMA = json.loads((REPO / "schema/report.schema.json").read_text())
TRUNCATED = "reject.truncated.str"      # expects malformed.truncated (tests/harness_fixtures/corpus/reject.json)
RESERVED = "reject.reserved"            # expects malformed.reserved
TOO_BIG = "reject.encode.int-too-big"   # expects unrepresentable (encode)


def coarse_run(tmp_path, *flags, args=()):
    return run(tmp_path, *args, commands=[oracle_command(*flags)])


def test_ancestor_is_a_prefix_on_a_dot_boundary():
    assert ancestor("malformed", "malformed.truncated")
    assert ancestor("frame", "frame.field-type")
    assert not ancestor("malformed.truncated", "malformed.truncated")     # a class is not its own ancestor
    assert not ancestor("malform", "malformed.truncated")
    assert not ancestor("invalid.tuple", "invalid.tuple-length")          # '-' is no boundary
    assert not ancestor("invalid", "malformed.truncated")


def test_declared_classes_must_be_registry_classes_or_families():
    assert coarse_problem(["malformed", "invalid", "frame", "malformed.truncated"]) is None
    problem = coarse_problem(["malformed", "invalid.tuple"])
    assert "'invalid.tuple' is neither an error class of schema/registry.json nor a family" in problem
    assert "families: frame, invalid, limit, malformed" in problem


def test_a_declared_ancestor_is_coarse_and_counted_apart(tmp_path):
    r = coarse_run(tmp_path, "--coarse-classes", "malformed", "--reject-as", f"{TRUNCATED}:malformed",
                   "--reject-as", f"{RESERVED}:malformed")
    assert r.code == 0, r.stdout
    jsonschema.validate(r.report, SCHEMA)
    for vector in (TRUNCATED, RESERVED):
        record = r.record(vector, "reject")
        assert (record["verdict"], record["outcome"], record["answer"]) == ("coarse", "coarse", "error:malformed")
        assert record["detail"].startswith("rejected with malformed, the declared coarse class above malformed.")
    runner = r.report["runners"][0]
    assert runner["counts"]["coarse"] == 2 and runner["capabilities"]["coarse_classes"] == ["malformed"]
    assert r.report["totals"]["coarse"] == 2 and r.report["totals"]["failed"] == 0
    n = len(r.verdicts())
    assert r.report["totals"]["passed"] == n and r.report["totals"]["checked"] == n
    assert "oracle (python, oracle 0): 27 pass, 2 coarse, 0 fail, 3 info" in r.stdout
    assert r.last_line == f"{n} passed (2 coarse), 0 failed"
    # JUnit: passed, saying coarse in system-out.
    suite = ET.parse(r.out / "junit.xml").getroot().find("testsuite")
    assert (suite.get("failures"), suite.get("errors"), suite.get("skipped")) == ("0", "0", "0")
    case = next(c for c in suite if c.get("name") == f"{TRUNCATED} reject")
    assert case.find("system-out").text.startswith("coarse: rejected with malformed")
    # Badge and summary name the coarse count apart from the passes.
    assert dashboard_main(["--report", str(r.out / "report.json"), "--corpus", str(CORPUS),
                           "--out", str(tmp_path / "dash")]) == 0
    badge = json.loads((tmp_path / "dash" / "badges" / "oracle.json").read_text())
    assert badge["message"] == f"{n - 2}/{n} pass, 2 coarse" and badge["color"] == "yellowgreen"
    summary = (tmp_path / "dash" / "summary.md").read_text()
    assert f"{n} passed (2 coarse: rejected with a class family the runner declares), 0 failed" in summary
    assert "| coarse |" in summary and "✅ pass (some classes coarse)" in summary


def test_a_declared_class_that_is_no_ancestor_fails(tmp_path):
    r = coarse_run(tmp_path, "--coarse-classes", "malformed,invalid", "--reject-as", f"{RESERVED}:invalid",
                   "--reject-as", f"{TOO_BIG}:malformed")
    assert r.code == 1
    assert r.verdicts()[(RESERVED, "reject")] == "fail"
    assert r.verdicts()[(TOO_BIG, "reject-encode")] == "fail"
    assert "expected error malformed.reserved, got error invalid" in r.record(RESERVED, "reject")["detail"]
    assert r.report["totals"]["coarse"] == 0


def test_an_undeclared_ancestor_fails(tmp_path):
    r = coarse_run(tmp_path, "--reject-as", f"{TRUNCATED}:malformed")
    assert r.code == 1
    assert r.verdicts()[(TRUNCATED, "reject")] == "fail"
    # Declaring another family does not help either.
    r = coarse_run(tmp_path, "--coarse-classes", "invalid,frame", "--reject-as", f"{TRUNCATED}:malformed")
    assert r.verdicts()[(TRUNCATED, "reject")] == "fail" and r.code == 1


def test_a_listed_coarse_verdict_is_xpass(tmp_path):
    # Coarse is not a failure, so it needs no listing; a listed one is wrong like a listed pass.
    listing = tmp_path / "expected.txt"
    listing.write_text(f"{TRUNCATED}  reject  the library has one error for every malformed input\n")
    r = coarse_run(tmp_path, "--coarse-classes", "malformed", "--reject-as", f"{TRUNCATED}:malformed",
                   args=("--expected-failures", f"oracle={listing}"))
    assert r.code == 1
    assert r.verdicts()[(TRUNCATED, "reject")] == "xpass"
    assert r.record(TRUNCATED, "reject")["outcome"] == "coarse"


def test_an_unknown_declared_class_refuses_the_start(tmp_path):
    r = coarse_run(tmp_path, "--coarse-classes", "invalid.tuple")
    assert r.code == 1
    assert set(r.verdicts().values()) == {"crash", "info"}     # impl-level vectors are info whatever happened
    assert "capabilities.coarse_classes: 'invalid.tuple' is neither an error class" in r.stdout


@pytest.mark.parametrize("allow", [False, True])
def test_a_run_that_checks_nothing_exits_1_unless_allowed(tmp_path, allow):
    flags = ("--allow-nothing-checked",) if allow else ()
    r = coarse_run(tmp_path, "--eras", "alpha3", args=flags)       # the fixture corpus has no alpha3 vector
    n = len(r.verdicts())
    assert set(r.verdicts().values()) == {"unclaimed"}
    assert r.report["totals"]["checked"] == 0
    assert r.code == (0 if allow else 1)
    if allow:
        assert r.last_line == (f"0 passed, 0 failed, {n} unclaimed: NOTHING CHECKED (every verdict unclaimed); "
                               "exit status 0 by --allow-nothing-checked")
    else:
        assert r.last_line == (f"0 passed, 0 failed, {n} unclaimed: NOTHING CHECKED (every verdict unclaimed), "
                               "exit status 1 (--allow-nothing-checked to accept it)")


def test_one_checked_verdict_is_enough(tmp_path):
    # Only the selected vector's ops run; the claimed one is checked, so the run passes as before.
    r = coarse_run(tmp_path, args=("--case", TRUNCATED))
    assert r.code == 0 and r.last_line == "1 passed, 0 failed"


def test_report_journal_rebuilds_coarse_verdicts(tmp_path):
    import io

    from harness import cli

    r = coarse_run(tmp_path, "--coarse-classes", "malformed", "--reject-as", f"{TRUNCATED}:malformed")
    assert r.code == 0
    out = tmp_path / "rebuilt"
    code = cli.main(["report-journal", "--journal", str(r.out / "verdicts.jsonl"), "--corpus", str(CORPUS),
                     "--runners-dir", str(tmp_path / "no-runners"), "--out", str(out)], io.StringIO(), io.StringIO())
    report = json.loads((out / "report.json").read_text())
    jsonschema.validate(report, SCHEMA)
    assert code == 1        # a rebuilt report is marked incomplete
    assert report["verdicts"] == r.report["verdicts"] and report["totals"]["coarse"] == 1
