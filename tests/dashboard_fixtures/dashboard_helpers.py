"""Shared by tests/test_dashboard*.py: the fixture report and corpus, and building the reports from them."""

import json
import sys
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent
REPO = FIXTURES.parent.parent
REPORT = FIXTURES / "report.json"
CORPUS = FIXTURES / "corpus"
RUNNERS = FIXTURES / "runners"
XSD = FIXTURES / "junit.xsd"
FAILING_VECTOR = "seed.fixture.int32-year"     # python: fail (the corpus claims int32 is canonical for 2005)
XFAIL_VECTOR = "str.fixture.header-str8"       # python: xfail (listed in runners/python/expected-failures.txt)
CRASH_VECTOR = "seed.iep75.sql-request"        # oracle: crash on its 31st request

if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from dashboard import __main__ as cli  # noqa: E402


def build(out, report=REPORT, corpus=CORPUS, extra_args=()):
    """Runs 'python3 -m dashboard' in-process; returns its exit status."""
    return cli.main(["--report", str(report), "--corpus", str(corpus), "--out", str(out), *extra_args])


def page_data(html):
    """The JSON inlined in dashboard.html."""
    start = html.index('<script id="report-data" type="application/json">') + len(
        '<script id="report-data" type="application/json">')
    return json.loads(html[start:html.index("</script>", start)])


def with_cross(tmp_path):
    """The fixture report plus a producer x consumer matrix as the harness writes it (report.matrix)."""
    report = json.loads(REPORT.read_text())
    cell = lambda p, c, passed, failing: {"producer": p, "consumer": c, "pass": passed, "fail": len(failing),
                                          "xfail": 0, "no_bytes": 0, "failing": failing}
    report["matrix"] = {"producers": ["python", "oracle"], "consumers": ["python", "oracle"], "cells": [
        cell("python", "python", 16, []), cell("python", "oracle", 15, [FAILING_VECTOR]), cell("oracle", "python", 16, [])]}
    path = tmp_path / "report-with-cross.json"
    path.write_text(json.dumps(report))
    return path
