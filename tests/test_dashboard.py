"""python3 -m dashboard on the fixture report: what the page data, summary.md and the badges say."""

import json
import re

from dashboard_fixtures.dashboard_helpers import (CRASH_VECTOR, FAILING_VECTOR, REPORT, XFAIL_VECTOR, build,
                                                  page_data, with_cross)
from dashboard import values


def outputs(tmp_path, **kw):
    out = tmp_path / "out"
    assert build(out, **kw) == 0
    html = (out / "dashboard.html").read_text()
    return out, html, page_data(html)


def test_writes_one_self_contained_page_summary_and_badges(tmp_path):
    out, html, data = outputs(tmp_path)
    assert sorted(p.name for p in (out / "badges").iterdir()) == ["oracle.json", "python.json"]
    assert (out / "summary.md").exists()
    # No network: nothing is loaded from anywhere (no src=, no <link>, no url()), and the CSP forbids it.
    assert not re.search(r"<link\b|\bsrc\s*=|url\(|@import", html)
    assert "default-src 'none'" in html
    assert "/*DATA*/" not in html and "/*JS*/" not in html and "/*CSS*/" not in html


def test_families_by_runners_have_each_state(tmp_path):
    _, _, data = outputs(tmp_path)
    cells = {(f["name"], r): c for f in data["families"] for r, c in f["cells"].items()}
    assert cells[("seed", "python")] == {"counts": {"pass": 3, "fail": 1}, "state": "fail"}
    assert cells[("str", "python")]["state"] == "xfail"
    assert cells[("seed", "oracle")] == {"counts": {"pass": 3, "crash": 1}, "state": "crash"}
    assert cells[("int", "python")]["state"] == "pass"
    assert sum(f["vectors"] for f in data["families"]) == 16


def test_failing_vector_has_expected_and_actual_bytes_annotated(tmp_path):
    _, _, data = outputs(tmp_path)
    v = next(v for v in data["vectors"] if v["id"] == FAILING_VECTOR)
    (encode,) = [r for r in v["results"]["python"] if r["op"] == "encode"]
    assert encode["verdict"] == "fail"
    actual = encode["actual"]
    assert actual["focus"] == 50
    at50 = {r[0]: r for r in actual["bytes"]["ranges"]}[50]
    assert at50[2:5] == ["cd", "[1].items[0].int.header", "uint16"]
    canonical50 = {r[0]: r for r in v["canonical"]["ranges"]}[50]
    assert canonical50[2:5] == ["d2", "[1].items[0].int.header", "int32"]
    assert v["values"][1]["items"][0] == {"type": "int", "value": "2005"}


def test_xfail_and_crash_keep_their_reasons(tmp_path):
    _, _, data = outputs(tmp_path)
    python = next(x for x in data["expected_failures"] if x["runner"] == "python")
    (entry,) = python["entries"]
    assert entry["expectation"].endswith("fixture: the corpus wrongly says str8 is canonical for a 3-byte string")
    assert entry["matches"] == [{"vector": XFAIL_VECTOR, "op": "encode", "verdict": "xfail",
                                 "detail": "bytes differ from canonical at offset 0"}]
    crash = next(v for v in data["vectors"] if v["id"] == CRASH_VECTOR)
    assert crash["state"] == {"python": "pass", "oracle": "crash"}
    (record,) = [r for r in crash["results"]["oracle"] if r["verdict"] == "crash"]
    assert any("crashing on purpose" in line for line in record["diagnosis"])


def test_rule_coverage_marks_rules_without_vectors(tmp_path):
    _, _, data = outputs(tmp_path)
    rules = {r["id"]: r for r in data["rules"]}
    registry = json.loads((REPORT.parent.parent.parent / "schema" / "registry.json").read_text())
    assert set(rules) == {r["id"] for r in registry["rules"]}
    assert rules["MP-NIL"]["vectors"] == [] and rules["MP-NIL"]["state"]["python"]["state"] == "none"
    assert FAILING_VECTOR in rules["MP-INT-CANON"]["vectors"]
    assert rules["MP-INT-CANON"]["state"]["python"]["state"] == "fail"
    assert rules["MP-INT-CANON"]["state"]["oracle"]["state"] == "crash"


def test_summary_has_runner_table_and_links_to_failing_ids(tmp_path):
    out, _, _ = outputs(tmp_path, extra_args=["--dashboard-url", "https://ci.example/run/7/dashboard.html"])
    md = (out / "summary.md").read_text()
    assert md.startswith("## ❌ Ignite 3 wire-value conformance: 90 passed, 2 failed")
    assert "| python | msgpack-python 1.0.3 (python 3.11.2) | 44 | 0 | 0 | 1 | 1 | 0 | 0 | 0 | 0 | ❌ fail |" in md
    assert "| oracle | oracle 0 (python) | 45 | 0 | 0 | 0 | 0 | 1 | 0 | 0 | 0 | 💥 crash |" in md
    assert (f"| python | [{FAILING_VECTOR}](https://ci.example/run/7/dashboard.html#vector={FAILING_VECTOR}) "
            "| encode | fail | bytes differ from canonical at offset 50 |") in md
    assert f"[{CRASH_VECTOR}](https://ci.example/run/7/dashboard.html#vector={CRASH_VECTOR}) | encode | crash" in md
    assert XFAIL_VECTOR not in md     # an expected failure does not fail the run


def test_badges_are_shields_endpoint_json(tmp_path):
    out, _, _ = outputs(tmp_path)
    python = json.loads((out / "badges" / "python.json").read_text())
    assert python == {"schemaVersion": 1, "label": "python conformance", "message": "1 failing of 46", "color": "red"}
    report = json.loads(REPORT.read_text())
    for r in report["runners"]:      # a clean runner: all green, xfails and unclaimed ops said
        r["counts"] = dict.fromkeys(r["counts"], 0, ) | {"pass": 40, "xfail": 1, "unclaimed": 5}
    report["verdicts"] = [dict(v, verdict="pass") for v in report["verdicts"]]
    path = tmp_path / "clean.json"
    path.write_text(json.dumps(report))
    out2, _, _ = outputs(tmp_path / "clean", report=path)
    assert json.loads((out2 / "badges" / "python.json").read_text()) == {
        "schemaVersion": 1, "label": "python conformance", "message": "40/46 pass, 1 xfail, 5 unclaimed",
        "color": "yellowgreen"}


def test_state_names_the_worst_real_state_and_nothing_checked_is_said(tmp_path):
    """python passes with some info verdicts (its state is 'pass', not 'info'); oracle claims nothing of the run."""
    report = json.loads(REPORT.read_text())
    for v in report["verdicts"]:
        v["verdict"] = ("info" if v["vector"].startswith("int.") else "pass") if v["runner"] == "python" else "unclaimed"
    for r in report["runners"]:
        mine = [v["verdict"] for v in report["verdicts"] if v["runner"] == r["name"]]
        r["counts"] = {k: mine.count(k) for k in {*r["counts"], "unclaimed"}}
        r["expectations"]["stale"] = []
    path = tmp_path / "info-and-unclaimed.json"
    path.write_text(json.dumps(report))
    out, _, data = outputs(tmp_path, report=path)
    python, oracle = data["runners"]
    assert python["counts"]["info"] > 0 and (python["state"], python["nothing_checked"]) == ("pass", False)
    assert {f["cells"]["python"]["state"] for f in data["families"] if f["name"] != "int"} == {"pass"}
    assert oracle["nothing_checked"] and oracle["state"] == "unclaimed"
    md = (out / "summary.md").read_text()
    assert f"| {python['counts']['pass']} | 0 | {python['counts']['info']} | 0 | 0 |" in md
    assert md.splitlines()[7].endswith("| ➖ nothing checked (all unclaimed) |")
    assert json.loads((out / "badges" / "oracle.json").read_text())["message"] == "nothing checked, 46 unclaimed"


def test_cross_matrix_is_carried_when_the_report_has_it(tmp_path):
    _, _, data = outputs(tmp_path)
    assert data["cross"] is None
    _, _, data = outputs(tmp_path / "x", report=with_cross(tmp_path))
    assert [c["consumer"] for c in data["cross"]["cells"]] == ["python", "oracle", "python"]


def test_huge_values_are_clipped():
    big = [{"type": "array", "items": [{"type": "str", "value": "x" * 100000}] * 65536}]
    clipped = values.clip(big)
    assert len(json.dumps(clipped)) < 20000
    assert clipped[0]["items"][-1] == {"type": "clipped", "count": 65536 - values.MAX_ITEMS}
    assert clipped[0]["items"][0]["clipped_chars"] == 100000


def test_unreadable_report_is_a_usage_error(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    assert build(tmp_path / "out", report=bad) == 2
    assert "not a harness report" in capsys.readouterr().err


def test_a_matrix_fault_is_shown_as_a_crash_in_its_cell(tmp_path):
    report = json.loads(with_cross(tmp_path).read_text())
    cell = report["matrix"]["cells"][2]                     # oracle wrote, python read
    cell.update({"pass": 15, "fault": 1, "faulting": [FAILING_VECTOR]})
    path = tmp_path / "report-with-fault.json"
    path.write_text(json.dumps(report))
    _, summary, data = outputs(tmp_path / "y", report=path)
    shown = data["cross"]["cells"][2]
    assert shown["counts"] == {"pass": 15, "fault": 1}
    assert shown["failing"] == [{"vector": FAILING_VECTOR, "verdict": "crash",
                                 "detail": "python crashed, timed out or broke the protocol on oracle's bytes"}]


def test_the_versions_section_carries_both_committed_mutation_scores(tmp_path):
    """mutation/score.json (the catalogue) with mutation/stryker-score.json (StrykerJS) as its `stryker`."""
    from dashboard.model import mutation_score
    catalogue, stryker = tmp_path / "score.json", tmp_path / "stryker-score.json"
    assert mutation_score(catalogue, stryker) is None
    catalogue.write_text(json.dumps({"killed": 9, "total": 10, "corpus_version": "9.9.9"}))
    assert mutation_score(catalogue, stryker) == {"killed": 9, "total": 10, "corpus_version": "9.9.9"}
    stryker.write_text(json.dumps({"score": 80.5, "score_non_equivalent": 95.0, "mutants": 100, "date": "2026-01-01",
                                   "corpus_version": "9.9.8", "survivors": []}))
    assert mutation_score(catalogue, stryker)["stryker"] == {"score": 80.5, "score_non_equivalent": 95.0,
                                                            "mutants": 100, "date": "2026-01-01",
                                                            "corpus_version": "9.9.8"}
    catalogue.unlink()
    assert mutation_score(catalogue, stryker)["stryker"]["score"] == 80.5
    _, _, data = outputs(tmp_path)         # the repository's own committed scores reach the page
    assert data["meta"]["mutation"]["total"] >= 80 and data["meta"]["mutation"]["stryker"]["mutants"] > 0


def test_a_node_run_gets_a_section_and_its_wire_log_page(tmp_path):
    """With --node-report (default: node/report.json beside the report), dashboard.html gets the node section (the
    drivers' counts, a link) and node.html the verdicts with their wire logs; without one, neither."""
    _out, html, _data = outputs(tmp_path / "none")
    assert 'id="node"' not in html
    node = {"cases": 1, "complete": True, "ended": "complete", "seconds": 1.0,
            "drivers": {"python": {"pass": 0, "fail": 1, "fail_expected": 0, "unclaimed": 0, "unexpected": ["node.x.y"]}},
            "verdicts": [{"driver": "python", "case": "node.x.y", "rules": ["PT-STREAM"], "verdict": "fail",
                          "duration_ms": 5.0, "expected_failure": None, "detail": "d <b>", "description": "c",
                          "expected_outcome": {"status": "ok"}, "outcome": None, "diagnosis": ["line"],
                          "stderr_tail": "", "wire": [{"t_ms": 1.0, "from": "client", "kind": "request", "length": 8,
                                                      "note": "op 4", "hex": "00", "lines": ["  0  00 00 00 04  length"]}]}]}
    path = tmp_path / "node.json"
    path.write_text(json.dumps(node))
    out, html, _data = outputs(tmp_path / "with", extra_args=("--node-report", str(path)))
    assert 'id="node"' in html and 'href="node.html"' in html and "node.x.y" in html
    page = (out / "node.html").read_text()
    assert "d &lt;b&gt;" in page and "00 00 00 04  length" in page and "<script" not in page
