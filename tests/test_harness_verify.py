"""End-to-end tests of 'harness verify' with the oracle test double: faults, selection, dump, reports."""

import json
import xml.etree.ElementTree as ET

import jsonschema
import pytest

from harness_fixtures.harness_helpers import CORPUS, PATIENCE, REPO, all_keys, oracle_command, run

KEYS = all_keys()
IMPL = {k for k in KEYS if k[0].startswith(("basic.impl.", "reject.impl."))}


def assert_complete(result, runner=None):
    """Every (vector, op) of the selection has exactly one verdict."""
    records = [v for v in result.report["verdicts"] if runner is None or v["runner"] == runner]
    keys = [(v["vector"], v["op"]) for v in records]
    assert len(keys) == len(set(keys))
    assert set(keys) == KEYS


def test_clean_run_passes(tmp_path):
    r = run(tmp_path)
    assert r.code == 0, r.stdout
    assert_complete(r)
    verdicts = r.verdicts()
    assert {k for k, v in verdicts.items() if v == "info"} == IMPL
    assert all(v == "pass" for k, v in verdicts.items() if k not in IMPL)
    assert r.last_line == f"{len(KEYS)} passed, 0 failed"
    assert "oracle (python, oracle 0): 29 pass, 0 fail, 3 info" in r.stdout


@pytest.mark.parametrize("flag, verdict, words", [
    ("--crash-after", "crash", "exited with status 70"),
    ("--hang-on", "timeout", "no answer within 2 s"),
    ("--wrong-id-on", "protocol-error", "answered id"),
    ("--non-json-on", "protocol-error", "not JSON"),
    ("--garbage-on", "protocol-error", "debug: garbage on stdout"),
    ("--bad-schema-on", "protocol-error", "violates protocol.schema.json#/$defs/"),
])
def test_a_fault_costs_only_its_own_verdict(tmp_path, flag, verdict, words):
    # The hanging runner blocks for good: --timeout is small so the test ends soon, but only the hang is that slow.
    timeout = 2 if verdict == "timeout" else PATIENCE
    r = run(tmp_path, commands=[oracle_command(flag, 5, "--once", tmp_path / "fired")], timeout=timeout)
    assert_complete(r)
    bad = {k: v for k, v in r.verdicts().items() if v not in ("pass", "info")}
    assert list(bad.values()) == [verdict], r.stdout
    assert words in r.stdout
    assert r.code == 1
    assert r.last_line == f"{len(KEYS) - 1} passed, 1 failed"
    runner = r.report["runners"][0]
    assert runner["restarts"] == 1


def test_a_blank_stray_line_is_shown_with_the_line_after_it(tmp_path):
    # A runner prints a blank line, then a warning, on stdout: the report names the warning, not the empty line.
    r = run(tmp_path, commands=[oracle_command("--garbage-on", 5, "--blank-garbage", "--once", tmp_path / "fired")])
    (record,) = [v for v in r.report["verdicts"] if v["verdict"] == "protocol-error"]
    assert record["detail"].endswith("): a blank line, then: debug: garbage on stdout"), record["detail"]
    assert record["diagnosis"][0] == "line: a blank line, then: debug: garbage on stdout"
    assert_complete(r)


def test_crash_stderr_tail_is_kept(tmp_path):
    r = run(tmp_path, commands=[oracle_command("--crash-after", 2, "--once", tmp_path / "fired")])
    (record,) = [v for v in r.report["verdicts"] if v["verdict"] == "crash"]
    assert any("oracle: crashing on purpose at request 3" in line for line in record["diagnosis"])


def test_repeated_crashes_still_account_for_every_vector(tmp_path):
    r = run(tmp_path, commands=[oracle_command("--crash-after", 3)])
    assert_complete(r)
    counts = r.report["runners"][0]["counts"]
    assert counts["crash"] >= 6 and counts["pass"] >= 20
    assert counts["crash"] + counts["pass"] + counts["info"] == len(KEYS)


def test_runner_that_exits_at_start_up(tmp_path):
    r = run(tmp_path, commands=[oracle_command("--exit-at-start")])
    assert_complete(r)
    assert {v for k, v in r.verdicts().items() if k not in IMPL} == {"crash"}
    assert "runner exited with status 3 before answering 'start'" in r.stdout
    assert "oracle: exiting at start-up on purpose" in r.stdout
    assert r.report["runners"][0]["start_error"]
    assert r.code == 1


@pytest.mark.parametrize("flags, words", [
    (["--protocol", 2], "runner speaks protocol 2; the harness speaks protocol 1"),
    (["--corpus-majors", "2,3"], "runner supports corpus major version(s) [2, 3]; this corpus is 1.0.0"),
    (["--name", "someone-else"], "runner calls itself 'someone-else', expected 'oracle'"),
])
def test_bad_handshake_is_refused(tmp_path, flags, words):
    command = oracle_command(*flags).replace("--name oracle", "", 1) if "--name" in flags else oracle_command(*flags)
    r = run(tmp_path, commands=[command])
    assert_complete(r)
    assert words in r.stdout
    assert r.report["runners"][0]["counts"]["crash"] == len(KEYS) - len(IMPL)


def test_missing_program_is_a_start_crash(tmp_path):
    r = run(tmp_path, commands=["oracle=/nonexistent/runner"])
    assert_complete(r)
    assert "cannot start" in r.stdout


def test_one_broken_runner_does_not_affect_another(tmp_path):
    # --max-faults high enough that 'bad' is never given up (tests/test_harness_hostile.py covers the cut-off).
    r = run(tmp_path, "--max-faults", "100", runners="good,bad", commands=[
        oracle_command(name="good"), oracle_command("--crash-after", 0, name="bad")])
    assert_complete(r, "good")
    assert_complete(r, "bad")
    assert set(r.verdicts("good").values()) == {"pass", "info"}
    assert set(r.verdicts("bad").values()) == {"crash", "info"}
    summary = [line for line in r.stdout.splitlines() if line.startswith(("good ", "bad "))]
    assert summary == ["good (python, oracle 0): 29 pass, 0 fail, 3 info",
                       f"bad (python, oracle 0): 0 pass, 0 fail, 29 crash, 3 info; 32 restarts"]


def test_capabilities_decide_what_is_sent(tmp_path):
    log = tmp_path / "received.jsonl"
    r = run(tmp_path, commands=[oracle_command("--ops", "decode", "--eras", "msgpack", "--log", log)])
    assert_complete(r)
    verdicts = r.verdicts()
    assert verdicts[("basic.nil", "encode")] == "unclaimed"
    assert verdicts[("basic.uuid.le", "decode")] == "unclaimed"
    assert verdicts[("basic.nil", "decode")] == "pass"
    received = [json.loads(line) for line in log.read_text().splitlines()]
    assert not [m for m in received if m["cmd"] == "encode" or m.get("era") == "3.0"]
    assert "not claimed: runner does not implement 'encode'" in r.stdout
    assert r.code == 0     # unclaimed ops need no listing


def test_runner_skipped_response_is_a_skip(tmp_path):
    r = run(tmp_path, commands=[oracle_command("--skip", "basic.nil:decode")])
    assert r.verdicts()[("basic.nil", "decode")] == "skip"
    assert "runner skipped: told to skip" in r.stdout


def test_wrong_bytes_show_offset_path_and_annotated_hex(tmp_path):
    r = run(tmp_path, commands=[oracle_command("--break", "basic.map.nested:encode:6",
                                               "--break", "basic.ext.raw:encode:5")])
    assert r.verdicts()[("basic.map.nested", "encode")] == "fail"
    out = r.stdout
    assert "FAIL oracle basic.map.nested encode: bytes differ from canonical at offset 6" in out
    assert "canonical path [0].entries[0].value.items[0].int.payload[1]" in out
    assert "canonical path [0].ext(-1).payload[3]" in out
    assert "canonical bytes (11): 81a16b92cd012cc4020102" in out
    assert "actual bytes (11): 81a16b92cd012dc4020102" in out
    assert ">     5  01 2d  [0].entries[0].value.items[0].int.payload  301" in out
    assert 'values: [{"type":"map"' in out


def test_wrong_values_and_wrong_reject_class(tmp_path):
    r = run(tmp_path, commands=[oracle_command("--break", "basic.str.abc:decode[str8]",
                                               "--break", "reject.reserved:reject")])
    assert "values differ at $[0].value" in r.stdout
    assert 'actual values:   [{"type":"str","value":"wrong"}]' in r.stdout
    assert "expected class: malformed.reserved" in r.stdout
    assert "actual outcome: decoded to []" in r.stdout


def test_encoder_may_emit_variant_passes_and_names_it(tmp_path):
    r = run(tmp_path, commands=[oracle_command("--encode-as", "basic.str.abc:d903616263",
                                               "--encode-as", "basic.int.small:d10005")])
    record = r.record("basic.str.abc", "encode")
    assert (record["verdict"], record["matched"]) == ("pass", "str8")
    # int16 is a decode variant only: an encoder must not write it.
    assert r.verdicts()[("basic.int.small", "encode")] == "fail"


def test_nan_class_matches_any_nan_of_the_same_width(tmp_path):
    r = run(tmp_path, commands=[oracle_command("--other-nan")])
    v = r.verdicts()
    assert v[("basic.float.nan-class", "encode")] == "pass"
    assert v[("basic.float.nan-class", "decode")] == "pass"
    assert v[("basic.float.nan-bits", "encode")] == "fail"
    assert v[("basic.float.nan-bits", "decode")] == "fail"


def test_case_and_k_select_vectors(tmp_path):
    r = run(tmp_path, "--case", "basic.nil", "--case", "reject.reserved", "-k", "basic.int.*")
    assert {k[0] for k in r.verdicts()} == {"basic.nil", "reject.reserved", "basic.int.small", "basic.int.u64-max"}
    assert r.report["corpus"]["selection"]["full"] is False
    assert r.code == 0


def test_corpus_can_be_a_single_file(tmp_path):
    r = run(tmp_path, corpus=CORPUS / "reject.json")
    assert {k[0] for k in r.verdicts()} == {"reject.truncated.str", "reject.reserved", "reject.encode.int-too-big",
                                            "reject.impl.depth"}


def test_empty_selection_exits_2(tmp_path):
    r = run(tmp_path, "-k", "nothing.*")
    assert r.code == 2
    assert "matches no vector" in r.stderr


def test_unknown_runner_exits_2_listing_known_ones(tmp_path):
    runners = tmp_path / "runners"
    (runners / "alpha").mkdir(parents=True)
    (runners / "alpha" / "runner.json").write_text('{"command": ["true"]}')
    r = run(tmp_path, runners="beta", commands=[], runners_dir=runners)
    assert r.code == 2
    assert "unknown runner 'beta'" in r.stderr and "alpha" in r.stderr


def test_runner_json_command_runs_in_its_directory(tmp_path):
    runners = tmp_path / "runners"
    (runners / "oracle").mkdir(parents=True)
    (runners / "oracle" / "runner.json").write_text(json.dumps({"command": [
        "/usr/bin/python3", str(REPO / "tests/harness_fixtures/oracle_runner.py"), "--corpus", str(CORPUS),
        "--log", "received.jsonl"]}))
    r = run(tmp_path, "--case", "basic.nil", commands=[], runners_dir=runners)
    assert r.code == 0
    assert (runners / "oracle" / "received.jsonl").exists()


def test_dump_prints_exactly_what_the_runner_receives(tmp_path):
    log = tmp_path / "received.jsonl"
    run(tmp_path, "--case", "basic.int.small", commands=[oracle_command("--log", log)])
    dumped = run(tmp_path, "--dump", "basic.int.small", runners=None, commands=[])
    assert dumped.code == 0
    received = log.read_text().splitlines()
    assert dumped.stdout.splitlines() == received[:-1]          # the harness ends with 'stop'
    assert json.loads(received[-1]) == {"cmd": "stop"}
    assert [json.loads(x)["cmd"] for x in received[:-1]] == ["start", "encode", "decode", "decode", "decode"]


def test_invalid_corpus_is_refused_with_file_and_path(tmp_path):
    data = json.loads((CORPUS / "basic.json").read_text())
    data["vectors"][2]["canonical"] = "ABC"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    r = run(tmp_path, corpus=bad)
    assert r.code == 2
    assert f"{bad}: does not match schema/corpus.schema.json" in r.stderr
    assert "$.vectors[2].canonical: 'ABC' does not match" in r.stderr


def test_duplicate_ids_are_refused(tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for name in ("a", "b"):
        data = json.loads((CORPUS / "reject.json").read_text())
        (corpus / f"{name}.json").write_text(json.dumps(data))
    r = run(tmp_path, corpus=corpus)
    assert r.code == 2
    assert "duplicate id 'reject.truncated.str'" in r.stderr


def test_report_matches_its_schema_and_junit_parses(tmp_path):
    r = run(tmp_path, runners="oracle,other", commands=[
        oracle_command("--break", "basic.nil:decode"),
        oracle_command("--crash-after", 4, "--once", tmp_path / "fired", name="other")])
    schema = json.loads((REPO / "schema/report.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(r.report)
    assert r.report["corpus"]["version"] == "1.0.0"
    assert r.report["corpus"]["registry_version"]
    assert [x["name"] for x in r.report["runners"]] == ["oracle", "other"]
    assert len(r.report["verdicts"]) == 2 * len(KEYS)
    # The matrix adds only fresh verdicts. Every producer wrote canonical bytes, whose own-op decode verdicts
    # are reused, except the one 'other' crashed on: those bytes are sent again and pass (+1). other -> oracle
    # on basic.nil is xfail (the same bytes fail oracle's own decode, already counted once).
    assert r.report["totals"] == {"passed": 2 * len(KEYS) - 2 + 1, "failed": 2, "unclaimed": 0, "coarse": 0,
                                  "checked": 2 * len(KEYS)}
    suites = ET.parse(r.out / "junit.xml").getroot().findall("testsuite")
    assert [s.get("name") for s in suites] == ["oracle", "other"]
    assert [len(s.findall("testcase")) for s in suites] == [len(KEYS), len(KEYS)]
    failure = suites[0].find("testcase[@name='basic.nil decode']/failure")
    assert failure is not None and "values differ" in failure.text
    assert suites[1].find("testcase/error").get("type") == "crash"


def test_command_line_entry_point(tmp_path):
    import subprocess
    out = tmp_path / "out"
    p = subprocess.run(["/usr/bin/python3", "-m", "harness", "verify", "--runners", "oracle", "--corpus",
                        str(CORPUS), "--out", str(out), "--command", oracle_command(), "-k", "reject.*"],
                       cwd=REPO, capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines()[-1] == "4 passed, 0 failed"


def test_command_line_exit_leaves_the_reports_and_output_whole(tmp_path):
    """`python3 -m harness` ends the process without returning (verify._done): a failing run still exits 1 with every
    output line, the reports written and the journal closed."""
    import subprocess
    out = tmp_path / "out"
    p = subprocess.run(["/usr/bin/python3", "-m", "harness", "verify", "--runners", "oracle", "--corpus",
                        str(CORPUS), "--out", str(out), "--command", oracle_command("--break", "basic.nil:encode:0"),
                        "-k", "basic.*"], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert p.returncode == 1, p.stderr
    assert p.stdout.splitlines()[-1].endswith(" passed, 1 failed") and "FAIL oracle basic.nil encode" in p.stdout
    assert p.stderr.splitlines()[-1].startswith("reports: ")
    report = json.loads((out / "report.json").read_text())
    assert report["totals"]["failed"] == 1 and "incomplete" not in report
    assert ET.parse(out / "junit.xml").getroot().find("testsuite").get("failures") == "1"
    assert json.loads((out / "verdicts.jsonl").read_text().splitlines()[-1]) == {"end": "complete"}


def test_deeply_nested_values_go_through(tmp_path):
    depth = 600
    value = {"type": "nil"}
    for _ in range(depth):
        value = {"type": "array", "items": [value]}
    vector = {"id": "deep.arrays", "kind": "value", "description": "deep", "era": "msgpack", "level": "should",
              "rules": ["MP-DEPTH-MIN"], "since": "1.0.0", "values": [value], "canonical": "91" * depth + "c0",
              "variants": []}
    corpus = tmp_path / "deep.json"
    corpus.write_text(json.dumps({"corpus_version": "1.0.0", "family": "deep", "description": "x", "source": "x",
                                  "vectors": [vector]}))
    r = run(tmp_path, commands=[oracle_command("--break", "deep.arrays:encode:599", corpus=corpus)], corpus=corpus)
    assert r.verdicts() == {("deep.arrays", "encode"): "fail", ("deep.arrays", "decode"): "pass"}
    assert "first difference at byte offset 599" in r.stdout


def test_diagnoses_go_to_the_worst_verdicts_and_skips_are_grouped(tmp_path):
    """The budget (--max-diagnoses) goes to crash, then fail, whatever the vector order; skips a runner answers
    take one line per reason, with a count, and no diagnosis."""
    r = run(tmp_path, "--max-diagnoses", "1", commands=[oracle_command(
        "--break", "basic.int.small:encode", "--crash-after", 30, "--once", tmp_path / "fired",
        "--skip", "basic.nil:decode", "--skip", "basic.nil:encode", "--skip", "basic.uuid.le:decode")])
    lines = r.stdout.splitlines()
    crash = next(i for i, line in enumerate(lines) if line.startswith("CRASH oracle "))
    fail = next(i for i, line in enumerate(lines) if line.startswith("FAIL oracle basic.int.small encode"))
    assert crash < fail
    assert lines[crash + 1].startswith("    ")          # the crash got the one full diagnosis
    assert not lines[fail + 1].startswith("    ")       # the fail, listed after it, a line only
    skip_lines = [line for line in lines if line.startswith("SKIP oracle")]
    assert skip_lines == ["SKIP oracle: 3 ops runner skipped: told to skip (e.g. basic.nil encode, basic.nil decode, "
                          "basic.uuid.le decode)"]
