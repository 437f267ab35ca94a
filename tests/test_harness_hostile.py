"""The harness against runners that are not to be trusted (issue 18's table): each case ends with a readable
report, a clear verdict, a bounded peak RSS of the harness itself (measured: VmHWM of the harness process), and
nothing of the run left running. How long each case takes is a figure of bench/hostile_speed.py (make
bench-verify), not an assert here: a loaded machine would decide it. The waits below are generous bounds (fail
only after them), and a runner that must be slow blocks for good instead of sleeping a tuned time."""

import json
import os
import signal
import subprocess
import xml.etree.ElementTree as ET

import jsonschema
import pytest

from harness_fixtures.harness_helpers import (CORPUS, FIXTURES, HUNG, PATIENCE, PY, REPO, all_keys,
                                             oracle_command, processes_mentioning, run, wait_until)
from harness import ops
from harness.corpus import load
from harness.runner_process import MAX_LINE, STDERR_LOG_CAP
from harness.text import MESSAGE_LIMIT

KEYS = all_keys()
PLAN = ops.plan(load(CORPUS).vectors)
FIRST_ENCODE = next(i for i, op in enumerate(PLAN, 1) if op.name == "encode")     # its request number
FIRST_DECODE = next(i for i, op in enumerate(PLAN, 1) if op.name == "decode")
RSS_LIMIT_KIB = 512 * 1024
SCHEMA = json.loads((REPO / "schema/report.schema.json").read_text())


class Harness:
    """One harness run as its own process (so its peak RSS is its own), with the oracle as runner 'oracle'."""

    def __init__(self, tmp_path, *flags, args=()):
        self.out = tmp_path / "out"
        # Generous per-request and start timeouts (args may set them again: the last one counts).
        argv = [PY, str(FIXTURES / "rss_harness.py"), "verify", "--corpus", str(CORPUS), "--out", str(self.out),
                "--runners", "oracle", "--command", oracle_command(*flags), "--runners-dir", str(tmp_path),
                "--timeout", str(PATIENCE), "--start-timeout", str(PATIENCE), *args]
        p = subprocess.run(argv, capture_output=True, timeout=HUNG, cwd=tmp_path)
        self.code, self.raw_stdout = p.returncode, p.stdout
        self.stdout, self.stderr = p.stdout.decode(), p.stderr.decode()
        self.peak_kib = int(self.stderr.strip().splitlines()[-1].split()[1])
        self.report = json.loads((self.out / "report.json").read_text())
        jsonschema.Draft202012Validator(SCHEMA).validate(self.report)
        ET.parse(self.out / "junit.xml")

    def verdicts(self):
        return {(v["vector"], v["op"]): v for v in self.report["verdicts"]}

    def only_failure(self):
        bad = [v for v in self.report["verdicts"] if v["verdict"] not in ("pass", "info")]
        assert len(bad) == 1, [(v["vector"], v["op"], v["verdict"]) for v in bad]
        return bad[0]

    def assert_bounded(self):
        assert self.peak_kib < RSS_LIMIT_KIB, f"harness peak RSS {self.peak_kib // 1024} MiB"
        assert b"\x00" not in self.raw_stdout and b"\x1b" not in self.raw_stdout
        assert "Traceback" not in self.stderr, self.stderr


def once(tmp_path, kind, on):
    return ("--hostile", kind, "--hostile-on", on, "--once", tmp_path / "fired")


def test_lone_surrogates_and_control_bytes_in_an_error_message(tmp_path):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "report.json").write_text('{"old": true}')
    h = Harness(tmp_path, *once(tmp_path, "surrogate-message", FIRST_DECODE))
    h.assert_bounded()
    v = h.only_failure()
    assert v["verdict"] == "fail" and v["op"] == "decode"
    assert "lone \ufffd then \ufffd, NUL \\x00, ESC \\x1b[31m red" in v["detail"]
    assert "NUL \\x00, ESC \\x1b[31m red" in h.stdout
    assert h.code == 1


def test_start_answer_with_surrogates_and_control_bytes(tmp_path):
    h = Harness(tmp_path, "--hostile", "start-surrogate")
    h.assert_bounded()
    runner = h.report["runners"][0]
    assert (runner["language"], runner["library"]) == ("python\ufffd", "lib\\x00\\x1b[2J")
    assert "oracle (python\ufffd, lib\\x00\\x1b[2J 0)" in h.stdout


def test_control_bytes_on_stdout_are_escaped(tmp_path):
    h = Harness(tmp_path, *once(tmp_path, "control-bytes", 2))
    h.assert_bounded()
    v = h.only_failure()
    assert v["verdict"] == "protocol-error"
    assert "\\x00\\x1b[2J\\x07 not json" in v["detail"]


@pytest.mark.parametrize("kind, size", [("huge-hex", 32 << 20), ("zero-hex", 32 << 20), ("no-newline", 0)])
def test_a_line_over_the_limit_is_a_protocol_error_not_memory(tmp_path, kind, size):
    # 32 MiB of hex (16 MiB of bytes); stdout without a newline, forever: read up to the line limit, no further
    # (a protocol error, not a timeout: the verdict says the harness stopped at the limit, not at --timeout).
    h = Harness(tmp_path, *once(tmp_path, f"{kind}:{size}", FIRST_ENCODE))
    h.assert_bounded()
    v = h.only_failure()
    assert v["verdict"] == "protocol-error"
    assert f"stdout line longer than {MAX_LINE} bytes" in v["detail"]


def test_large_answer_under_the_line_limit_is_judged_in_bounded_memory(tmp_path):
    # Just under the line limit: 7.5 MiB of zero bytes as an encode answer; judged, diagnosed, annotated (up to
    # the annotation's own limit), in bounded memory.
    size = MAX_LINE - (1 << 20)
    h = Harness(tmp_path, *once(tmp_path, f"zero-hex:{size}", FIRST_ENCODE))
    h.assert_bounded()
    v = h.only_failure()
    assert v["verdict"] == "fail" and v["detail"].startswith("bytes differ from canonical")
    assert all(len(line.encode()) < MESSAGE_LIMIT + 100 for line in v["diagnosis"])


def test_a_huge_error_message_is_cut_to_the_message_limit(tmp_path):
    h = Harness(tmp_path, *once(tmp_path, f"big-message:{10 << 20}", FIRST_DECODE))
    h.assert_bounded()
    v = h.only_failure()
    assert v["verdict"] == "fail"
    assert len(v["detail"].encode()) < MESSAGE_LIMIT + 100
    assert v["detail"].endswith(f"... (truncated {(10 << 20) - MESSAGE_LIMIT + len('rejected valid input: error malformed.hostile (') + 1} bytes)")
    for name in ("report.json", "junit.xml", "verdicts.jsonl"):
        assert (h.out / name).stat().st_size < 1 << 20, name
    assert len(h.raw_stdout) < 1 << 20


def test_a_50_mb_error_message_is_over_the_line_limit(tmp_path):
    h = Harness(tmp_path, *once(tmp_path, f"big-message:{50 << 20}", FIRST_DECODE))
    h.assert_bounded()
    assert h.only_failure()["verdict"] == "protocol-error"
    assert len(h.raw_stdout) < 1 << 20 and (h.out / "report.json").stat().st_size < 1 << 20


@pytest.mark.parametrize("kind", ["deep-json:200000", "long-int:5000"])
def test_unreadable_json_is_a_protocol_error(tmp_path, kind):
    h = Harness(tmp_path, *once(tmp_path, kind, 2))
    h.assert_bounded()
    v = h.only_failure()
    assert v["verdict"] == "protocol-error" and "stdout line is not JSON" in v["detail"]


def test_stderr_flood_without_newline_is_a_bounded_tail_and_a_capped_log(tmp_path):
    h = Harness(tmp_path, "--hostile", f"stderr-flood:{STDERR_LOG_CAP + (8 << 20)}")
    h.assert_bounded()
    assert h.code == 0, h.stdout
    assert {v["verdict"] for v in h.report["verdicts"]} == {"pass", "info"}
    log = h.out / "oracle.stderr.log"
    assert STDERR_LOG_CAP <= log.stat().st_size < STDERR_LOG_CAP + 1000
    assert log.read_text().endswith(f"[harness: stderr log capped at {STDERR_LOG_CAP} bytes; the rest is not kept]\n")


@pytest.mark.parametrize("flags, verdict", [(("--hang-on", 1), "timeout"), (("--crash-after", 0), "crash")])
def test_a_runner_that_fails_after_every_restart_is_given_up(tmp_path, flags, verdict):
    # The hanging runner blocks for good on its first request: a small --timeout makes the five hangs short (the
    # other requests are never sent; each restart's 'start' still has --start-timeout PATIENCE).
    h = Harness(tmp_path, *flags, args=["--timeout", "2"])
    h.assert_bounded()
    runner = h.report["runners"][0]
    counts = runner["counts"]
    assert counts[verdict] == 5 and counts["abandoned"] == len(KEYS) - 5 - counts["info"]
    assert "given up after 5 crashes or timeouts in a row (--max-faults 5)" in runner["abandoned"]
    assert f"ABANDONED oracle: {counts['abandoned']} ops not sent: the runner was given up" in h.stdout
    assert h.code == 1
    assert h.report["totals"]["failed"] == len(KEYS) - counts["info"]


def test_max_faults_option(tmp_path):
    h = Harness(tmp_path, "--crash-after", 0, args=["--max-faults", "2"])
    assert h.report["runners"][0]["counts"]["crash"] == 2


@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_stops_the_run_kills_every_runner_and_writes_the_partial_report(tmp_path, sig, code):
    marker = f"hostile-child-{os.getpid()}-{sig}"
    out = tmp_path / "out"
    argv = [PY, str(FIXTURES / "rss_harness.py"), "verify", "--corpus", str(CORPUS), "--out", str(out),
            "--runners", "oracle", "--timeout", "1000", "--runners-dir", str(tmp_path),
            "--command", oracle_command("--hang-on", 4, "--spawn-child", marker)]
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    journal = out / "verdicts.jsonl"
    # The runner hangs (for good) on request 4: the journal's header and 3 outcomes, then nothing more comes.
    wait_until(lambda: journal.exists() and len(journal.read_text().splitlines()) >= 4, "3 outcomes in the journal")
    assert processes_mentioning(marker), "the runner's child should be running"
    p.send_signal(sig)
    stdout, stderr = p.communicate(timeout=HUNG)
    assert p.returncode == code, stderr.decode()
    report = json.loads((out / "report.json").read_text())
    jsonschema.Draft202012Validator(SCHEMA).validate(report)
    assert report["incomplete"]["reason"] == f"interrupted by {signal.Signals(sig).name}"
    assert len(report["verdicts"]) == 3 and report["incomplete"]["missing"] == len(KEYS) - 3
    lines = [json.loads(line) for line in journal.read_text().splitlines()]
    assert lines[-1] == {"end": f"interrupted by {signal.Signals(sig).name}"}
    assert len([x for x in lines if "outcome" in x]) == 3
    assert "INCOMPLETE: interrupted by" in stdout.decode()
    # Killed, but a killed process leaves /proc only once its parent has reaped it: wait for that.
    wait_until(lambda: processes_mentioning(marker) == [] and processes_mentioning(str(tmp_path)) == [],
               "the runner and its child to be gone")


def test_an_internal_error_still_writes_the_verdicts_so_far(tmp_path, monkeypatch):
    from harness import judge
    calls = []

    def judge_that_breaks(op, response):
        calls.append(op)
        if len(calls) == 3:
            raise RuntimeError("a harness bug")
        return judge._judge.__wrapped__(op, response)

    judge_that_breaks.__wrapped__ = judge._judge
    monkeypatch.setattr(judge, "_judge", judge_that_breaks)
    # Every answer goes through _judge() when the runner skips: the fast paths only take exact answers.
    skips = [a for op in PLAN[:6] for a in ("--skip", f"{op.vector_id}:{op.name}")]
    r = run(tmp_path, commands=[oracle_command(*skips)])
    assert r.code == 3
    assert r.report["incomplete"]["reason"] == "internal error: RuntimeError: a harness bug"
    assert len(r.report["verdicts"]) == 2
    assert "Traceback" in r.stderr and "INCOMPLETE: internal error" in r.stdout


def test_report_writing_is_atomic(tmp_path):
    from harness import report
    path = tmp_path / "report.json"
    path.write_text('{"old": true}\n')
    with pytest.raises(UnicodeEncodeError):
        report.write(path, {"detail": "lone \ud800"})
    assert path.read_text() == '{"old": true}\n'
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]


def corpus_run(tmp_path, corpus):
    """The harness over a hostile corpus, as its own process: (exit status, stderr lines, peak RSS KiB)."""
    argv = [PY, str(FIXTURES / "rss_harness.py"), "verify", "--corpus", str(corpus), "--out", str(tmp_path / "out"),
            "--runners", "oracle", "--command", oracle_command(), "--runners-dir", str(tmp_path)]
    p = subprocess.run(argv, capture_output=True, timeout=HUNG, text=True)
    lines = p.stderr.strip().splitlines()
    return p.returncode, lines[:-1], int(lines[-1].split()[1])


def hostile_corpus(tmp_path, name, content=None):
    """The fixture corpus plus one more entry (written as bytes, or made by the caller when content is None)."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for p in CORPUS.glob("*.json"):
        (corpus / p.name).write_bytes(p.read_bytes())
    if content is not None:
        (corpus / name).write_bytes(content)
    return corpus


def _file_with(tail):
    return b'{"corpus_version": "1.0.0", "family": "hostile", "vectors": [], "x": ' + tail + b"}"


@pytest.mark.parametrize("name, content, words", [
    ("long-int.json", lambda: _file_with(b"7" * 5000), "not a readable JSON file: Exceeds the limit (4300 digits)"),
    ("deep.json", lambda: _file_with(b"[" * 200_000 + b"]" * 200_000), "nested deeper than the harness reads"),
    ("big.json", lambda: _file_with(b'"' + b"ab" * (32 << 20) + b'"'), "over the limit of 33554432 bytes per corpus"),
], ids=["5000-digit-int", "200000-deep", "64-MiB-hex"])
def test_hostile_corpus_files_are_refused_with_one_line(tmp_path, name, content, words):
    code, lines, peak = corpus_run(tmp_path, hostile_corpus(tmp_path, name, content()))
    assert code == 2
    assert lines[-1].startswith(f"harness: {tmp_path / 'corpus' / name}: ") and words in lines[-1], lines
    assert "Traceback" not in "\n".join(lines)
    assert peak < RSS_LIMIT_KIB


def test_a_hex_string_over_the_limit_is_refused(tmp_path):
    data = json.loads((CORPUS / "reject.json").read_text())
    data["vectors"][0]["hex"] = "00" * (5 << 20)
    code, lines, peak = corpus_run(tmp_path, hostile_corpus(tmp_path, "reject.json", json.dumps(data).encode()))
    assert code == 2 and "$.vectors[0].hex: 10485760 hex digits, over the limit of 8388608" in lines[-1], lines
    assert peak < RSS_LIMIT_KIB


@pytest.mark.parametrize("make, words", [
    (lambda p: os.mkfifo(p), "not a regular file"),
    (lambda p: os.symlink("/dev/zero", p), "a link out of the corpus directory (to /dev/zero)"),
    (lambda p: os.symlink(CORPUS / "basic.json", p), "a link out of the corpus directory"),
], ids=["fifo", "link-to-dev-zero", "link-out"])
def test_only_regular_files_inside_the_corpus_directory_are_read(tmp_path, make, words):
    corpus = hostile_corpus(tmp_path, "odd.json")
    make(corpus / "odd.json")
    code, lines, peak = corpus_run(tmp_path, corpus)
    assert code == 2 and f"{corpus / 'odd.json'}: " in lines[-1] and words in lines[-1], lines
    assert peak < RSS_LIMIT_KIB


@pytest.mark.parametrize("option, value", [("--window", "0"), ("--timeout", "inf"), ("--timeout", "0"),
                                           ("--timeout", "-1"), ("--timeout", "nan"), ("--start-timeout", "1e9"),
                                           ("--max-faults", "0"), ("--max-diagnoses", "-1")])
def test_numeric_options_are_range_checked(tmp_path, capsys, option, value):
    r = run(tmp_path, option, value)
    assert r.code == 2 and not (tmp_path / "out").exists()
    assert f"argument {option}: " in capsys.readouterr().err


BAD_NAME = "../../x"


def test_runner_names_are_checked_in_the_cli(tmp_path):
    r = run(tmp_path, runners=BAD_NAME, commands=[oracle_command(name="ok")])
    assert r.code == 2 and "runner name '../../x': a runner name is lower-case letters" in r.stderr
    r = run(tmp_path, runners="ok", commands=[oracle_command(name=BAD_NAME)])
    assert r.code == 2 and "--command" in r.stderr and "a runner name is lower-case letters" in r.stderr
    assert not (tmp_path.parent / "x.stderr.log").exists()     # out/../../x.stderr.log


def test_runner_names_are_checked_by_the_gate_and_the_bench_tool(tmp_path):
    env = dict(os.environ, CORPUS_RELEASE=str(tmp_path / "none.tar.gz"), CORPUS_SHA256="0" * 64,
               RUNNER_NAME=BAD_NAME, RUNNER_COMMAND="true", GATE_OUT=str(tmp_path / "gate"))
    p = subprocess.run(["/bin/sh", str(REPO / "ci" / "gate.sh")], env=env, capture_output=True, text=True, timeout=HUNG)
    assert p.returncode == 2 and "RUNNER_NAME '../../x': use lower-case letters" in p.stderr
    p = subprocess.run([PY, str(REPO / "tools" / "bench_hostile.py"), "--runners", BAD_NAME, "--out",
                        str(tmp_path / "bench")], capture_output=True, text=True, timeout=HUNG)
    assert p.returncode == 2 and "a runner name is lower-case letters" in p.stderr


def test_a_report_with_a_bad_runner_name_writes_no_badge(tmp_path):
    from dashboard import __main__ as dashboard
    report = json.loads((REPO / "tests" / "dashboard_fixtures" / "report.json").read_text())
    report["runners"][0]["name"] = BAD_NAME
    for v in report["verdicts"]:
        v["runner"] = BAD_NAME if v["runner"] == "python" else v["runner"]
    path = tmp_path / "report.json"
    path.write_text(json.dumps(report))
    code = dashboard.main(["--report", str(path), "--corpus", str(REPO / "tests" / "dashboard_fixtures" / "corpus"),
                           "--out", str(tmp_path / "out" / "a")])
    assert code == 2 and not (tmp_path / "out" / "x.json").exists()     # out/a/badges/../../x.json


def test_protocol_doc_states_the_limits_the_code_has():
    from harness import corpus, runner_process, runner_session
    doc = (REPO / "runners" / "PROTOCOL.md").read_text()
    limits = doc[doc.index("### Limits"):doc.index("### The producer x consumer matrix")]
    assert f"{runner_process.MAX_LINE >> 20} MiB ({runner_process.MAX_LINE:,} bytes" in limits
    assert f"| {runner_process.QUEUED_LINES} |" in limits
    assert f"default 64, and at most {runner_session.WINDOW_BYTES >> 20} MiB of them" in limits
    assert f"{MESSAGE_LIMIT} bytes of UTF-8" in limits
    assert f"default {runner_session.MAX_FAULTS}" in limits
    assert f"last {runner_process.STDERR_TAIL} lines, {runner_process.STDERR_LINE} bytes each" in limits
    assert f"{runner_process.STDERR_LOG_CAP >> 20} MiB per run" in limits
    assert f"{corpus.MAX_FILE_BYTES >> 20} MiB per corpus file and {corpus.MAX_HEX_CHARS >> 20}" in limits


@pytest.mark.parametrize("tool, argv", [
    ("fuzz", ["-m", "fuzz", "--runners", "python", "--timeout", "nan"]),
    ("fuzz", ["-m", "fuzz", "--runners", "python", "--window", "0"]),
    ("bench", [str(REPO / "tools" / "bench_hostile.py"), "--timeout", "inf"]),
])
def test_the_fuzz_and_bench_tools_range_check_their_numbers(tool, argv):
    p = subprocess.run([PY, *argv], cwd=REPO, capture_output=True, text=True, timeout=HUNG)
    assert p.returncode == 2 and "out of range" in p.stderr, p.stderr
