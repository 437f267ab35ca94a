"""report-journal: report.json and junit.xml rebuilt from out/verdicts.jsonl, after a SIGKILL and after a complete
run, through verify's own steps."""

import io
import json
import os
import shutil
import signal
import subprocess
import xml.etree.ElementTree as ET

import jsonschema

from harness_fixtures.harness_helpers import (CORPUS, HUNG, ORACLE, PY, REPO, oracle_command, processes_mentioning,
                                             run, wait_until)
from harness import cli, journal as journal_mod

SCHEMA = json.loads((REPO / "schema/report.schema.json").read_text())
JOURNAL_FIELDS = ("runner", "vector", "op", "outcome", "detail")


def rebuild(journal, corpus, out):
    stdout, stderr = io.StringIO(), io.StringIO()
    code = cli.main(["report-journal", "--journal", str(journal), "--corpus", str(corpus), "--out", str(out)],
                    stdout, stderr)
    report = json.loads((out / "report.json").read_text()) if (out / "report.json").exists() else None
    return code, stdout.getvalue(), stderr.getvalue(), report


def test_a_killed_run_is_rebuilt_from_its_journal(tmp_path):
    corpus = tmp_path / "corpus"        # its path in every command line: what the kill left running is found
    shutil.copytree(CORPUS, corpus)
    out = tmp_path / "out"
    journal = out / "verdicts.jsonl"
    # python answers every op; the oracle answers 3 and hangs, so the run is mid-way when it is killed. --serial:
    # a forked worker holds a hung runner's last outcomes in its batch until the next one comes.
    argv = [PY, "-m", "harness", "verify", "--serial", "--corpus", str(corpus), "--out", str(out), "-k", "basic.*",
            "--runners", "python,oracle", "--timeout", "1000", "--runners-dir", str(REPO / "runners"),
            "--command", oracle_command("--hang-on", 4, corpus=corpus)]
    out.mkdir()
    for name in ("report.json", "junit.xml"):   # an older run's, which disagree with this run's journal: removed
        (out / name).write_text("stale\n")
    p = subprocess.Popen(argv, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        def counted():
            records = journal_mod.read(journal)[1] if journal.exists() else []     # a torn last line is left out
            return [(r["runner"], r["outcome"]) for r in records]
        wait_until(lambda: counted().count(("oracle", "pass")) == 3 and ("python", "pass") in counted(),
                   "3 oracle passes and a python pass in the journal")
        assert counted().count(("oracle", "pass")) == 3, counted()
        p.send_signal(signal.SIGKILL)
        p.wait(timeout=HUNG)
    finally:
        p.kill()
        for pid in processes_mentioning(str(tmp_path)):
            os.kill(pid, signal.SIGKILL)
    assert not (out / "report.json").exists() and not (out / "junit.xml").exists()
    header, records, end = journal_mod.read(journal)
    assert end is None

    code, stdout, stderr, report = rebuild(journal, corpus, out)
    assert code == 1, stderr
    jsonschema.Draft202012Validator(SCHEMA).validate(report)
    assert report["incomplete"] == {"reason": "rebuilt from the journal; run ended: killed before the end",
                                    "missing": header["ops"] * 2 - len(records)}
    assert report["incomplete"]["missing"] > 0
    assert report["corpus"]["selection"]["patterns"] == ["basic.*"]
    assert sorted(tuple(v[k] for k in JOURNAL_FIELDS) for v in report["verdicts"]) == \
        sorted(tuple(r[k] for k in JOURNAL_FIELDS) for r in records)
    assert [r["language"] for r in report["runners"]] == [None, None]      # start answers are not journaled
    suites = ET.parse(out / "junit.xml").getroot()
    assert sum(int(s.get("tests")) for s in suites) == len(records)
    assert f"INCOMPLETE: rebuilt from the journal; run ended: killed before the end; " \
           f"{report['incomplete']['missing']} verdicts missing" in stdout
    assert stdout.rstrip().endswith(f"{report['totals']['passed']} passed, {report['totals']['failed']} failed")


def test_a_complete_journal_rebuilds_the_runs_verdicts_with_its_expectations(tmp_path):
    runners = tmp_path / "runners" / "oracle"
    runners.mkdir(parents=True)
    (runners / "runner.json").write_text(json.dumps({"command": [PY, str(ORACLE), "--corpus", str(CORPUS),
                                                                 "--break", "basic.str.abc:encode"]}))
    (runners / "expected-failures.txt").write_text("basic.str.abc  encode  broken on purpose\n")
    r = run(tmp_path, commands=[], runners_dir=tmp_path / "runners")
    original = r.report
    assert r.record("basic.str.abc", "encode")["verdict"] == "xfail" and r.code == 0

    rebuilt_out = tmp_path / "rebuilt"
    argv = ["report-journal", "--journal", str(r.out / "verdicts.jsonl"), "--corpus", str(CORPUS),
            "--runners-dir", str(tmp_path / "runners"), "--out", str(rebuilt_out)]
    stdout, stderr = io.StringIO(), io.StringIO()
    code = cli.main(argv, stdout, stderr)
    report = json.loads((rebuilt_out / "report.json").read_text())
    jsonschema.Draft202012Validator(SCHEMA).validate(report)
    assert code == 1, stderr.getvalue()
    assert report["verdicts"] == original["verdicts"]       # expectations applied from the runner's file again
    assert report["incomplete"] == {"reason": "rebuilt from the journal; run ended: complete", "missing": 0}
    assert report["totals"] == original["totals"]
    # The same per-runner lines and closing totals as verify printed; only the start answer's words are missing.
    closing = next(line for line in r.stdout.splitlines() if line.startswith("oracle (python, oracle 0): "))
    assert stdout.getvalue().splitlines()[-1] == r.last_line
    assert closing.replace(" (python, oracle 0)", "") in stdout.getvalue().splitlines()


def test_a_journal_without_a_header_is_a_clear_error(tmp_path):
    journal = tmp_path / "verdicts.jsonl"
    journal.write_text('{"runner": "x", "vector": "basic.nil", "op": "decode", "outcome": "pass", "detail": ""}\n')
    code, _, stderr, report = rebuild(journal, CORPUS, tmp_path / "out")
    assert code == 2 and report is None
    assert "no journal header" in stderr
