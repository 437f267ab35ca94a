"""The runners' processes start before the corpus loads (harness/prestart.py): whatever stops the run before
their sessions take them over kills them, their early stderr reaches out/<name>.stderr.log, and the start timeout
counts from the 'start' request, sent once the plan is ready."""

import shlex
import signal
import time

import pytest

from harness_fixtures.harness_helpers import PY, ORACLE, CORPUS, oracle_command, run
from harness import incomplete, judge, prestart, verify


@pytest.fixture
def started(monkeypatch):
    """The RunnerProcess objects the harness starts early, as a list filled in as they start."""
    procs = []

    class Recording(prestart.Prestarted):
        def __init__(self, configs=()):
            super().__init__(configs)
            procs.extend(proc for proc, _ in self._procs.values())

    monkeypatch.setattr(verify, "Prestarted", Recording)
    return procs


@pytest.mark.parametrize("args, words", [
    (["-k", "nothing.*"], "matches no vector"),
    (["--require", "era=nonsense"], "unknown era 'nonsense'"),
])
def test_an_error_after_the_early_start_kills_those_runners(tmp_path, started, args, words):
    r = run(tmp_path, *args, runners="oracle,other",
            commands=[oracle_command(), oracle_command(name="other")])
    assert r.code == 2 and words in r.stderr
    assert len(started) == 2, "both runners should have been started before the corpus loaded"
    assert all(proc.proc.poll() is not None for proc in started), "an early runner outlived the failed run"
    assert not r.out.exists(), "a run that fails while loading writes nothing to --out"


def test_a_configuration_error_starts_no_runner_and_reads_as_before(tmp_path, started):
    r = run(tmp_path, runners="oracle,missing", commands=[oracle_command()])
    assert r.code == 2 and "unknown runner 'missing'" in r.stderr
    assert started == []


def test_a_signal_while_loading_kills_the_early_runners_and_reports_the_interrupt(tmp_path, started, monkeypatch):
    real_prepare = judge.prepare

    def prepare_then_signal(plan, **kw):
        real_prepare(plan, **kw)
        incomplete.on_signal(signal.SIGINT, None)     # what the handler does when SIGINT arrives now

    monkeypatch.setattr(judge, "prepare", prepare_then_signal)
    r = run(tmp_path)
    assert r.code == 130
    assert r.report["incomplete"]["reason"] == "interrupted by SIGINT" and r.report["verdicts"] == []
    assert len(started) == 1 and started[0].proc.poll() is not None


def test_stderr_written_before_the_log_is_open_is_kept(tmp_path):
    oracle = [PY, str(ORACLE), "--corpus", str(CORPUS), "--name", "oracle"]
    command = "oracle=sh -c " + shlex.quote("echo written-at-start-up >&2; exec " + shlex.join(oracle))
    r = run(tmp_path, commands=[command])
    assert r.code == 0, r.stdout
    assert (r.out / "oracle.stderr.log").read_text().startswith("written-at-start-up\n")


def test_the_start_timeout_counts_from_the_start_request_not_the_process_start(tmp_path, started, monkeypatch):
    # Loading takes an hour on the harness's clock (time.monotonic, which every deadline of the harness reads), far
    # past --start-timeout: the clock jumps instead of the test sleeping, so the machine's load decides nothing.
    real_prepare, real_clock, hour = judge.prepare, time.monotonic, [0.0]

    def slow_prepare(plan, **kw):
        real_prepare(plan, **kw)
        hour[0] = 3600.0

    monkeypatch.setattr(time, "monotonic", lambda: real_clock() + hour[0])
    monkeypatch.setattr(judge, "prepare", slow_prepare)
    r = run(tmp_path, "--start-timeout", "60")
    assert hour[0] and len(started) == 1, "the runner should have been started before the corpus loaded"
    assert r.code == 0, r.stdout
    assert "did not start" not in r.stdout
