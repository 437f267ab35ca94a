"""verify --fail-fast (harness/fail_fast.py): the run ends at the first verdict that would fail it, naming it, and
only there: impl-level vectors and expected failures do not stop it. Run as a process: fail-fast ends it."""

import json
import subprocess

from harness import ops
from harness.corpus import load
from harness_fixtures.harness_helpers import CORPUS, ORACLE, PY, REPO, processes_mentioning


def verify(tmp_path, *flags, listing=""):
    """`python3 -m harness verify --fail-fast` with the oracle (given flags) over the fixture corpus."""
    d = tmp_path / "runners" / "oracle"
    d.mkdir(parents=True)
    marker = f"--fail-fast-test-{tmp_path.name}"      # names this test's oracle processes
    (d / "runner.json").write_text(json.dumps({"command": [PY, str(ORACLE), "--corpus", str(CORPUS),
                                                           "--name", "oracle", *map(str, flags), "--log",
                                                           str(tmp_path / marker)]}))
    (d / "expected-failures.txt").write_text(listing)
    out = tmp_path / "out"
    r = subprocess.run([PY, "-m", "harness", "verify", "--fail-fast", "--corpus", str(CORPUS), "--runners", "oracle",
                        "--runners-dir", str(tmp_path / "runners"), "--out", str(out), "--window", "1",
                        "--timeout", "2"], cwd=REPO, capture_output=True, text=True, timeout=60)
    return r, out, marker


def test_stops_at_the_first_failure_and_names_it(tmp_path):
    r, out, marker = verify(tmp_path, "--break", "basic.map.nested:encode")
    assert r.returncode == 1, r.stdout + r.stderr
    assert r.stdout.splitlines() == [r.stdout.splitlines()[0]]
    assert r.stdout.startswith("fail-fast: oracle basic.map.nested encode: fail: ")
    assert not (out / "report.json").exists()
    # The ops after the failing one were never asked for (one request in flight), and the runner is gone.
    keys = [op.key for op in ops.plan(load(CORPUS).vectors)]
    requests = (tmp_path / marker).read_text().splitlines()[1:]      # after 'start'
    assert len(requests) == keys.index(("basic.map.nested", "encode")) + 1 < len(keys)
    assert processes_mentioning(marker) == []


def test_a_failure_on_an_impl_level_vector_does_not_stop_the_run(tmp_path):
    r, out, _ = verify(tmp_path, "--break", "basic.impl.depth:encode")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "fail-fast" not in r.stdout
    assert r.stdout.splitlines()[-1] == "32 passed, 0 failed"
    assert (out / "report.json").exists()


def test_an_expected_failure_does_not_stop_the_run(tmp_path):
    r, _, _ = verify(tmp_path, "--break", "basic.map.nested:encode",
                     listing="basic.map.nested  encode  library writes uint16 wrong (issue 1)\n")
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.splitlines()[-1] == "32 passed, 0 failed"


def test_a_crash_stops_it_too(tmp_path):
    r, _, marker = verify(tmp_path, "--exit-at-start")
    assert r.returncode == 1
    assert "crash: runner did not start" in r.stdout.splitlines()[0]
    assert processes_mentioning(marker) == []
