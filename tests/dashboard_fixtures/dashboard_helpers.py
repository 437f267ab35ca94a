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

from dashboard import __main__ as cli, page  # noqa: E402


def build(out, report=REPORT, corpus=CORPUS, extra_args=()):
    """Runs 'python3 -m dashboard' in-process; returns its exit status."""
    return cli.main(["--report", str(report), "--corpus", str(corpus), "--out", str(out), *extra_args])


def page_data(html):
    """The data inlined in dashboard.html, every vector whole (dashboard/page.py packs it)."""
    tag = '<script id="report-data" type="application/x-gzip-base64">'
    start = html.index(tag) + len(tag)
    return page.unpack(html[start:html.index("</script>", start)])


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


def all_pass_report(corpus=REPO / "vectors"):
    """A report of every runner in runners/ passing every op of the real corpus, as a run of conforming runners
    writes it (impl-level vectors 'info'): the size of page the dashboard must keep small."""
    from harness import ops

    from dashboard import model

    names = sorted(p.parent.name for p in (REPO / "runners").glob("*/runner.json"))
    files, records = [], []
    for family, vectors in model.read_corpus(corpus):
        files.append({"path": f"vectors/{family}.json", "corpus_version": "?", "family": family, "vectors": len(vectors)})
        for v in vectors:
            for op in ops.ops_for(v):
                kind = op.name.split("[")[0]
                detail, answer = {"encode": ("wrote the canonical bytes", "hex"),
                                  "decode": ("values equal", "values")}.get(
                    kind, (f"rejected with {v.get('error')}", f"error:{v.get('error')}"))
                records.append({"vector": v["id"], "op": op.name, "verdict": "info" if v["level"] == "impl" else "pass",
                                "outcome": "pass", "level": v["level"], "rules": v["rules"], "era": v["era"],
                                "detail": detail, "diagnosis": [], "answer": answer,
                                "matched": "canonical" if kind == "encode" else None, "expectation": None})
    version = json.loads((REPO / "schema" / "registry.json").read_text())["corpus_version"]
    counts = {k: sum(r["verdict"] == k for r in records) for k in ("pass", "info")}
    runners = [{"name": name, "language": name, "library": f"{name}-msgpack", "library_version": "1.0",
                "command": [name], "capabilities": None, "start_error": None, "restarts": 0, "unmet_requirements": [],
                "abandoned": None, "counts": counts,
                "expectations": {"file": f"runners/{name}/expected-failures.txt", "stale": [], "unchecked": [],
                                 "add": [], "remove": []}} for name in names]
    return {"report_format": 1, "harness_version": "0.1.0", "timestamp": "2026-01-01T00:00:00+00:00",
            "corpus": {"registry_version": version, "version": version, "files": files,
                       "selection": {"cases": [], "patterns": [], "full": True,
                                     "vectors": sum(f["vectors"] for f in files), "ops": len(records)}},
            "runners": runners, "verdicts": [{"runner": name, **r} for name in names for r in records],
            "totals": {"passed": len(records) * len(names), "failed": 0, "unclaimed": 0}}


def full_corpus_page(out):
    """out/dashboard.html for all_pass_report() over the real corpus (built in-process, on a large-stack thread as
    'python3 -m dashboard' builds it: the corpus nests values 600 deep); returns (its path, the page data)."""
    from harness import threads

    from dashboard import model

    box = []

    def work():
        report, corpus = all_pass_report(), model.read_corpus(REPO / "vectors")
        data = model.build(report, corpus, json.loads((REPO / "schema" / "registry.json").read_text()))
        box.append((data, page.render(data)))

    threads.run_all([work])
    (data, html), = box
    Path(out).mkdir(parents=True, exist_ok=True)
    path = Path(out) / "dashboard.html"
    path.write_text(html, encoding="utf-8")
    return path, data
