"""Each runner's session in a worker process (--workers, with two or more runners) gives the same report, JUnit
file and journal as judging every runner in one process (the default)."""

import json

from harness_fixtures.harness_helpers import oracle_command, run
from harness import workers


def three(tmp_path, *args):
    # Passes, a wrong answer, a skip, crashes and protocol errors with restarts: every path the workers carry back.
    tmp_path.mkdir()
    commands = [oracle_command("--non-json-on", 9, name="a"),
                oracle_command("--break", "basic.map.nested:encode:6", "--skip", "basic.nil:decode", name="b"),
                oracle_command("--crash-after", 5, name="c")]
    # Window 1: which op is a process's Nth request after a restart must not depend on timing.
    return run(tmp_path, "--window", "1", *args, runners="a,b,c", commands=commands)


def comparable(r, root):
    """What must be equal, with the run's own directory (in expected-failure paths) written as RUN."""
    report = json.loads(json.dumps(dict(r.report, timestamp=None)).replace(str(root), "RUN"))
    journal = (r.out / "verdicts.jsonl").read_text().splitlines()
    # Runners answer concurrently either way: the journal's order between runners is not fixed, its lines are.
    texts = [(r.out / "junit.xml").read_text(), journal[0], "\n".join(sorted(journal[1:-1])), journal[-1], r.stdout]
    return report, [t.replace(str(root), "RUN") for t in texts]


def test_workers_and_serial_give_the_same_reports(tmp_path, monkeypatch):
    monkeypatch.setattr(workers.os, "cpu_count", lambda: 2)     # the worker path even on a 1-core machine
    assert workers.usable(3)
    used = []
    real = workers.run_all
    monkeypatch.setattr(workers, "run_all", lambda *a, **k: used.append(1) or real(*a, **k))
    parallel = three(tmp_path / "parallel", "--workers")
    assert used, "--workers should have used worker processes"
    serial = three(tmp_path / "serial")
    assert len(used) == 1, "the default path should not have used worker processes"
    assert parallel.code == serial.code == 1
    verdicts = {v["verdict"] for v in serial.report["verdicts"]}
    assert {"pass", "fail", "skip", "crash", "protocol-error"} <= verdicts, verdicts
    p, s = comparable(parallel, tmp_path / "parallel"), comparable(serial, tmp_path / "serial")
    assert p[0] == s[0]
    assert p[1] == s[1]
    assert json.loads(p[1][3]) == {"end": "complete"}
