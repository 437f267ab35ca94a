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
    """The fixture report plus a producer x consumer matrix in the shape the dashboard expects."""
    report = json.loads(REPORT.read_text())
    report["cross"] = {"producers": ["python", "oracle"], "consumers": ["python", "oracle"], "cells": [
        {"producer": "python", "consumer": "python", "counts": {"pass": 16}, "failing": []},
        {"producer": "python", "consumer": "oracle", "counts": {"pass": 15, "fail": 1},
         "failing": [{"vector": FAILING_VECTOR, "verdict": "fail", "detail": "oracle read python's bytes wrongly"}]},
        {"producer": "oracle", "consumer": "python", "counts": {"pass": 16}, "failing": []},
    ]}
    path = tmp_path / "report-with-cross.json"
    path.write_text(json.dumps(report))
    return path
