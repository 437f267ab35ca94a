"""The producer x consumer matrix of 'harness verify': cells, the no-double-counting rule, report and output."""

import json

import jsonschema

from harness_fixtures.harness_helpers import REPO, all_keys, oracle_command, run

KEYS = all_keys()
VALUE_VECTORS = 12          # value vectors of tests/harness_fixtures/corpus (the matrix's rows per cell)


def cells(result):
    return {(c["producer"], c["consumer"]): c for c in result.report["matrix"]["cells"]}


def two(tmp_path, a_flags=(), b_flags=(), *args):
    return run(tmp_path, *args, runners="a,b", commands=[oracle_command(*a_flags, name="a"),
                                                         oracle_command(*b_flags, name="b")])


def test_agreeing_runners_fill_every_cell_with_passes(tmp_path):
    r = two(tmp_path)
    assert r.code == 0, r.stdout
    m = r.report["matrix"]
    assert m["producers"] == m["consumers"] == ["a", "b"]
    assert [(c["producer"], c["consumer"]) for c in m["cells"]] == [("a", "b"), ("b", "a")]
    for c in m["cells"]:
        assert (c["pass"], c["fail"], c["xfail"], c["no_bytes"], c["failing"]) == (VALUE_VECTORS, 0, 0, 0, [])
    # The closing line stays last and counts the per-runner verdicts plus the matrix's fresh ones. Both runners
    # write the canonical bytes, which each consumer already decoded in its own op: those verdicts are reused,
    # so the matrix adds no new passes (counting them again would double-count).
    assert r.last_line == f"{2 * len(KEYS)} passed, 0 failed"
    assert "(no extra decode requests: every producer wrote bytes the corpus holds" in r.stdout
    assert [line.split() for line in r.stdout.splitlines() if line.startswith("  ")] == [
        ["a", "b"], ["a", "-", "12/0/0/0"], ["b", "12/0/0/0", "-"]]
    schema = json.loads((REPO / "schema/report.schema.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(r.report)


def test_consumer_failure_on_canonical_bytes_is_counted_once(tmp_path):
    # b mis-decodes basic.int.small's canonical bytes: its own decode verdict fails, and a's identical bytes
    # land in the matrix as xfail, not as a second failure.
    r = two(tmp_path, (), ("--break", "basic.int.small:decode"))
    c = cells(r)[("a", "b")]
    assert (c["pass"], c["fail"], c["xfail"], c["failing"]) == (VALUE_VECTORS - 1, 0, 1, [])
    # Only b's own decode verdict fails; the matrix reuses own verdicts for canonical bytes and adds nothing.
    assert r.last_line == f"{2 * len(KEYS) - 1} passed, 1 failed"


def test_wrong_bytes_are_charged_to_the_producer(tmp_path):
    # a writes bytes that are not the corpus's (its encode verdict fails); b cannot read them: xfail.
    r = two(tmp_path, ("--encode-as", "basic.int.small:cd0006"))
    c = cells(r)[("a", "b")]
    assert (c["pass"], c["fail"], c["xfail"]) == (VALUE_VECTORS - 1, 0, 1)
    assert r.last_line.endswith(" passed, 1 failed")
    assert "(1 extra decode request, for bytes the corpus does not hold)" in r.stdout


def test_novel_bytes_the_corpus_accepts_must_be_read_by_every_consumer(tmp_path):
    # a writes a different NaN where the vector accepts any NaN (its encode passes); b, knowing only the
    # corpus's bytes, refuses them. No per-runner verdict records that: the matrix fails the run.
    r = two(tmp_path, ("--other-nan",))
    assert r.code == 1
    c = cells(r)[("a", "b")]
    assert (c["fail"], c["failing"]) == (1, ["basic.float.nan-class"])
    assert cells(r)[("b", "a")]["fail"] == 0
    assert "FAIL matrix a -> b basic.float.nan-class: fail: rejected valid input" in r.stdout
    assert "  a -> b failing: basic.float.nan-class" in r.stdout
    # --other-nan also breaks a's own exact-NaN verdicts; the matrix adds exactly one failure to those.
    own = sum(n for x in r.report["runners"] for k, n in x["counts"].items() if k not in ("pass", "xfail", "info"))
    assert r.last_line.endswith(f" passed, {own + 1} failed")


def test_producer_without_bytes(tmp_path):
    r = two(tmp_path, ("--skip", "basic.nil:encode"))
    c = cells(r)[("a", "b")]
    assert (c["pass"], c["no_bytes"]) == (VALUE_VECTORS - 1, 1)
    assert cells(r)[("b", "a")]["no_bytes"] == 0


def test_no_matrix_flag_and_single_runner(tmp_path):
    r = two(tmp_path / "flag", (), (), "--no-matrix")
    assert "matrix" not in r.report and "matrix:" not in r.stdout
    assert r.last_line == f"{2 * len(KEYS)} passed, 0 failed"
    r = run(tmp_path / "single")
    assert "matrix" not in r.report


def test_consumer_crash_on_matrix_requests_is_a_counted_fault(tmp_path):
    # a writes bytes the corpus does not have (its encode fails); b crashes on every such matrix request. That
    # crash is b's, on the matrix's own request: counted as a fault in the cell, shown, and failing the run.
    r = two(tmp_path, ("--encode-as", "basic.int.small:cd0006"), ("--crash-on-unknown",))
    c = cells(r)[("a", "b")]
    assert (c["pass"], c["fail"], c["xfail"], c["fault"], c["faulting"]) == (VALUE_VECTORS - 1, 0, 0, 1,
                                                                              ["basic.int.small"])
    assert "FAULT matrix a -> b basic.int.small: crash: runner exited with status 70" in r.stdout
    assert "  a -> b faulting: basic.int.small" in r.stdout
    assert [line.split() for line in r.stdout.splitlines() if line.startswith("  a  ")] == [
        ["a", "-", "11/0/0/0", "1", "fault"]]
    # a's wrong encode, plus the matrix fault.
    assert r.last_line.endswith(" passed, 2 failed")
    schema = json.loads((REPO / "schema/report.schema.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(r.report)
