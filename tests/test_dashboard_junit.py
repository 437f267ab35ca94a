"""The harness's junit.xml, as a standard JUnit consumer reads it: valid against a JUnit XSD (lxml) and parsed by
junitparser (Debian python3-junitparser) with the counts of report.json. Runs the harness afresh on the dashboard
fixture, so a change in the harness's output is caught; then renders the dashboard from that fresh report."""

import io
import json

import junitparser
from lxml import etree

from dashboard_fixtures.dashboard_helpers import (CORPUS, CRASH_VECTOR, FAILING_VECTOR, FIXTURES, RUNNERS,
                                                  XFAIL_VECTOR, XSD, build, page_data)
from harness import cli


def fresh_run(tmp_path):
    out = tmp_path / "run"
    code = cli.main(["verify", "--corpus", str(CORPUS), "--runners-dir", str(RUNNERS), "--runners", "python,oracle",
                     "--out", str(out), "--window", "1"], io.StringIO(), io.StringIO())
    assert code == 1       # the fixture fails on purpose
    return out


def assert_valid_junit(path):
    schema = etree.XMLSchema(etree.parse(str(XSD)))
    doc = etree.parse(str(path))
    assert schema.validate(doc), schema.error_log


def test_committed_fixture_junit_is_valid():
    assert_valid_junit(FIXTURES / "junit.xml")


def test_harness_junit_is_valid_and_parses_with_the_report_counts(tmp_path):
    out = fresh_run(tmp_path)
    assert_valid_junit(out / "junit.xml")
    report = json.loads((out / "report.json").read_text())
    xml = junitparser.JUnitXml.fromfile(str(out / "junit.xml"))
    suites = {s.name: s for s in xml}
    assert set(suites) == {"python", "oracle"}
    for runner in report["runners"]:
        suite, c = suites[runner["name"]], runner["counts"]
        assert suite.tests == sum(c.values()) == len(list(suite))
        assert suite.failures == c["fail"] + c["xpass"] + c["skip"]
        assert suite.errors == c["crash"] + c["timeout"] + c["protocol-error"]
        assert suite.skipped == c["xfail"]
    results = {(s.name, case.name): [type(r).__name__ for r in case.result] for s in xml for case in s}
    assert results[("python", f"{FAILING_VECTOR} encode")] == ["Failure"]
    assert results[("python", f"{XFAIL_VECTOR} encode")] == ["Skipped"]
    assert results[("oracle", f"{CRASH_VECTOR} encode")] == ["Error"]
    assert results[("python", f"{CRASH_VECTOR} encode")] == []


def test_dashboard_renders_a_fresh_harness_report(tmp_path):
    out = fresh_run(tmp_path)
    assert build(tmp_path / "dash", report=out / "report.json") == 0
    data = page_data((tmp_path / "dash" / "dashboard.html").read_text())
    states = {v["id"]: v["state"] for v in data["vectors"]}
    assert states[FAILING_VECTOR]["python"] == "fail"
    assert states[XFAIL_VECTOR]["python"] == "xfail"
    assert states[CRASH_VECTOR]["oracle"] == "crash"
