"""make fuzz: a clean run passes and reports throughput; a planted bug is found, shrunk to one value and written
out as a case source that the generator accepts; the notation writer round-trips every value the fuzzer draws."""

import io
import json
import shlex
import sys
from pathlib import Path

import yaml
from hypothesis import HealthCheck, given, settings

from fuzz import check, frames as fuzz_frames, regression, strategies
from fuzz.__main__ import main
from generator import encode, expand

REPO = Path(__file__).resolve().parent.parent
PLANTED = REPO / "tests" / "fuzz_fixtures" / "planted_bug_runner.py"
GENEROUS = 3600     # seconds: a bound that only a hung run reaches


def fuzz(tmp_path, *args, runners="python,planted"):
    out = tmp_path / "fuzz"
    command = "planted=" + " ".join(shlex.quote(w) for w in [sys.executable, str(PLANTED), "planted"])
    stdout = io.StringIO()
    # The fuzzer's wall-time limits far past what a run here needs: a loaded machine must not cut the run or the
    # shrinking short, nor call a slow answer a timeout (fuzz speed is make fuzz's figure, not these tests').
    limits = ["--seconds", GENEROUS, "--shrink-seconds", GENEROUS, "--timeout", 60]
    code = main(["--runners", runners, "--command", command, "--out", str(out), "--seed", "7",
                 *map(str, limits + list(args))], stdout)
    summary = json.loads((out / "fuzz.json").read_text())
    return code, stdout.getvalue(), summary, out


def regression_source(summary):
    (path,) = summary["regressions"]
    text = Path(path).read_text()
    source = yaml.safe_load(text)
    return source, expand.expand(source, path)


def test_clean_run_passes_and_reports_throughput(tmp_path, monkeypatch):
    monkeypatch.delenv("PLANTED_BUG", raising=False)
    code, stdout, summary, out = fuzz(tmp_path, "--values", 300)
    assert code == 0, stdout
    assert summary["values"] >= 300 and summary["regressions"] == []
    assert summary["requests"] >= 2 * 2 * summary["values"]     # encode + decode, per value, per runner
    assert summary["values_per_second"] > 0
    assert "throughput: " in stdout and stdout.rstrip().endswith("0 disagreements")
    assert not (out / "regressions").exists()


def test_planted_decode_bug_is_found_shrunk_and_written(tmp_path, monkeypatch):
    monkeypatch.setenv("PLANTED_BUG", "uint32-decode")
    code, stdout, summary, out = fuzz(tmp_path, "--values", 3000, "--batch", 16)
    assert code == 1, stdout
    assert "planted decode: fail: values differ" in stdout
    source, vectors = regression_source(summary)
    # Shrunk: one case with one value, the smallest int the bug touches, with no container around it.
    (case,) = source["cases"]
    assert case["value"] == {"int": str(2 ** 32)}
    (vector,) = [v for v in vectors if v["kind"] == "value"]
    assert vector["values"] == [{"type": "int", "value": str(2 ** 32)}]
    assert vector["canonical"] == "cf0000000100000000"
    assert vector["id"] == case["id"] and vector["id"].startswith("fuzz.")


def test_planted_frame_bug_is_found_and_written_as_a_frame_source(tmp_path, monkeypatch):
    monkeypatch.setenv("PLANTED_BUG", "frame-last-extension")
    code, stdout, summary, out = fuzz(tmp_path, "--values", 3000, "--batch", 16)
    assert code == 1, stdout
    assert "planted decode: fail:" in stdout
    source, vectors = regression_source(summary)
    assert source["format"] == "frame"
    (case,) = source["cases"]
    assert case["frame"] in ("handshake-request", "handshake-response") and len(case["fields"]["extensions"]) == 1
    (vector,) = [v for v in vectors if v["kind"] == "value"]
    assert vector["format"] == "frame" and vector["id"] == case["id"]


def test_runner_crash_is_a_finding_not_a_harness_crash(tmp_path, monkeypatch):
    monkeypatch.setenv("PLANTED_BUG", "crash-on-date")
    code, stdout, summary, out = fuzz(tmp_path, "--values", 3000, "--batch", 16)
    assert code == 1, stdout
    assert "planted encode: crash: runner exited with status 70" in stdout
    source, vectors = regression_source(summary)
    (case,) = source["cases"]
    assert list(case["value"]) == ["date"]          # a bare date: the shrinker dropped everything else
    assert summary["restarts"]["planted"] >= 1


@settings(max_examples=300, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(strategies.elements)
def test_every_drawn_value_round_trips_through_the_source_notation(element):
    round_trips(element)


@settings(max_examples=200, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(fuzz_frames.elements)
def test_every_drawn_frame_round_trips_through_the_frame_source_notation(element):
    """Frames are 1 element in 8 of the mix; here only frames, so that every kind and the refused ones come up."""
    round_trips(element)


def round_trips(element):
    era, value, kind = element
    pairs = check.vectors([element])
    vector, cut = pairs[0]
    source = regression.source(era, value, vector, cut, [], 1, "1.0.0")
    text = regression.dump(source)
    (expanded,) = expand.expand(yaml.safe_load(text), "fuzz-regression.yaml")
    if kind == "frame":   # a message: its fields and frame come back (fuzz/frames.py)
        assert (expanded["frame"], expanded["fields"], expanded.get("features", [])) == (
            value["frame"], value["fields"], value["features"])
        if vector["kind"] == "value":
            assert expanded["canonical"] == vector["canonical"]
    else:
        assert expanded["values"] == [value]
    if vector["kind"] == "value":
        if kind != "frame":
            assert expanded["canonical"] == encode.canonical(value).hex()
    else:
        assert expanded["error"] == vector["error"]


def test_truncation_cut_is_a_strict_non_empty_prefix():
    for data in (b"\x01\x02", bytes(range(40)), b"\xcf" + bytes(8)):
        assert 1 <= check.cut_point(data) < len(data)


def test_a_crash_that_does_not_repeat_is_flaky_not_a_regression(tmp_path, monkeypatch):
    # The planted runner crashes on the first date it is asked to encode, and never again: the re-run before
    # shrinking sees no crash, so no regression case is written; the runner is reported as flaky, the run goes
    # on to check every value, and fails.
    monkeypatch.setenv("PLANTED_BUG", "crash-once-on-date")
    monkeypatch.setenv("PLANTED_MARKER", str(tmp_path / "crashed"))
    code, stdout, summary, out = fuzz(tmp_path, "--values", 600, "--batch", 16)
    assert code == 1, stdout
    assert (tmp_path / "crashed").exists()
    assert summary["regressions"] == [] and not (out / "regressions").exists()
    assert summary["values"] >= 600
    (flaky,) = summary["flaky"]
    assert (flaky["runner"], flaky["op"], flaky["outcome"]) == ("planted", "encode", "crash")
    assert "FLAKY planted encode: crash: runner exited with status 70" in stdout
    assert "a flaky runner" in stdout
