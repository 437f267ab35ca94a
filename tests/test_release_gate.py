"""Corpus releases and the CI gate: vectors/manifest.json, the harness's manifest check, `make release`
(tools/release.py) and ci/gate.sh run from a scratch directory as a client repository would run it."""

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile

import jsonschema
import pytest
import yaml

from harness_fixtures.harness_helpers import CORPUS, REPO, run

sys.path.insert(0, str(REPO / "tools"))
import release  # noqa: E402  (tools/release.py)

from generator import manifest as generator_manifest  # noqa: E402

PY = "/usr/bin/python3"
PYTHON_RUNNER = f"{PY} -B {REPO / 'runners' / 'python' / 'runner.py'}"
# The gate runs a slice of the corpus here to keep `make test` quick; a client runs all of it.
SLICE = "-k int.* -k ignite.3.0.*"
VERSION = json.loads((REPO / "schema" / "registry.json").read_text())["corpus_version"]   # the release's corpus


# --- the manifest -----------------------------------------------------------------------------
def test_committed_manifest_matches_its_schema_and_the_files():
    data = json.loads((REPO / "vectors" / "manifest.json").read_text())
    jsonschema.Draft202012Validator(json.loads((REPO / "schema" / "manifest.schema.json").read_text())).validate(data)
    registry = json.loads((REPO / "schema" / "registry.json").read_text())
    assert (data["corpus_version"], data["spec_version"]) == (registry["corpus_version"], registry["spec_version"])
    on_disk = sorted(p.name for p in (REPO / "vectors").glob("*.json") if p.name != "manifest.json")
    assert [f["path"] for f in data["files"]] == on_disk


def corpus_with_manifest(tmp_path):
    """The harness fixture corpus plus the manifest the generator would write for it."""
    corpus = tmp_path / "corpus"
    shutil.copytree(CORPUS, corpus)
    texts = {p.name: p.read_text(encoding="utf-8") for p in corpus.glob("*.json")}
    (corpus / "manifest.json").write_text(generator_manifest.render(texts), encoding="utf-8")
    return corpus


def test_a_corpus_matching_its_manifest_runs(tmp_path):
    r = run(tmp_path, "--require-manifest", corpus=corpus_with_manifest(tmp_path))
    assert r.code == 0, r.stderr
    assert f"2 files match manifest.json (corpus {VERSION}" in r.stderr


@pytest.mark.parametrize("damage, message", [
    (lambda c: (c / "basic.json").write_text((c / "basic.json").read_text().replace('"1.0.0"', '"1.0.0" ', 1)),
     "changed: basic.json (sha256 "),
    (lambda c: (c / "reject.json").unlink(), "missing: reject.json (listed in manifest.json)"),
    (lambda c: shutil.copy(c / "reject.json", c / "zz-extra.json"), "extra: zz-extra.json (not listed in manifest.json)"),
    (lambda c: (c / "manifest.json").write_text('{"manifest": 1}'), "does not match schema/manifest.schema.json"),
])
def test_a_tampered_or_partial_corpus_is_refused_naming_the_file(tmp_path, damage, message):
    corpus = corpus_with_manifest(tmp_path)
    damage(corpus)
    r = run(tmp_path, corpus=corpus)
    assert r.code == 2
    assert message in r.stderr, r.stderr
    assert r.report is None and r.stdout == ""


def test_no_manifest_is_a_note_unless_required(tmp_path):
    r = run(tmp_path / "a")
    assert r.code == 0 and "no manifest.json: the files are not checked" in r.stderr
    r = run(tmp_path / "b", "--require-manifest")
    assert r.code == 2 and f"{CORPUS / 'manifest.json'}: missing" in r.stderr
    r = run(tmp_path / "c", corpus=CORPUS / "reject.json")
    assert r.code == 0 and "a single corpus file: no manifest to check" in r.stderr


# --- the changelog and the release ------------------------------------------------------------
ENTRY = "## {v} (spec 1.0.0)\n\n### {section}\n\n- something\n\n"


@pytest.mark.parametrize("entries, version, problem", [
    ([("1.0.0", "Added")], "1.0.0", None),
    ([("1.1.0", "Added"), ("1.0.0", "Added")], "1.1.0", None),
    ([("2.0.0", "Changed"), ("1.0.0", "Added")], "2.0.0", None),
    ([("1.0.0", "Added")], "1.1.0", "has no entry '## 1.1.0 (spec 1.0.0)'"),
    ([("1.1.0", "Changed"), ("1.0.0", "Added")], "1.1.0", "need a major bump over 1.0.0, the version makes a minor"),
    ([("1.0.1", "Added"), ("1.0.0", "Added")], "1.0.1", "need a minor bump over 1.0.0, the version makes a patch"),
    ([("1.0.0", "Added"), ("1.1.0", "Added")], "1.1.0", "newest first"),
    ([("1.0.0", "Tweaked")], "1.0.0", "sections must be among"),
])
def test_changelog_follows_the_versioning_policy(entries, version, problem):
    text = "# Changelog\n\n" + "".join(ENTRY.format(v=v, section=s) for v, s in entries)
    problems = release.changelog_problems(text, version, "1.0.0")
    assert problems == [] if problem is None else any(problem in p for p in problems), problems


def test_the_repository_changelog_has_the_current_version():
    registry = json.loads((REPO / "schema" / "registry.json").read_text())
    assert release.changelog_problems((REPO / "CHANGELOG.md").read_text(), registry["corpus_version"],
                                      registry["spec_version"]) == []


def test_release_refuses_without_a_changelog_entry(tmp_path):
    root = tmp_path / "repo"
    (root / "schema").mkdir(parents=True)
    registry = json.loads((REPO / "schema" / "registry.json").read_text())
    (root / "schema" / "registry.json").write_text(json.dumps(dict(registry, corpus_version="9.9.9")))
    shutil.copy(REPO / "CHANGELOG.md", root / "CHANGELOG.md")
    with pytest.raises(release.ReleaseError, match="CHANGELOG.md has no entry '## 9.9.9"):
        release.release(root, tmp_path / "dist")


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    """`make release` into a scratch directory: (archive, sha256)."""
    out = tmp_path_factory.mktemp("dist")
    p = subprocess.run([PY, str(REPO / "tools" / "release.py"), "--out", str(out), "--no-drift-check"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    archive = next(out.glob("ignite-wire-corpus-*.tar.gz"))
    return archive, hashlib.sha256(archive.read_bytes()).hexdigest()


def test_release_archive_is_reproducible_and_complete(dist, tmp_path):
    archive, digest = dist
    assert (archive.parent / "SHA256SUMS").read_text() == f"{digest}  {archive.name}\n"
    again, _ = release.release(REPO, tmp_path, check_drift=False)
    assert again.read_bytes() == archive.read_bytes(), "two builds of the same tree differ"
    with tarfile.open(archive) as tar:
        members = tar.getmembers()
    names = [m.name for m in members]
    prefix = archive.name[:-len(".tar.gz")] + "/"
    assert names == sorted(names) and all(n.startswith(prefix) for n in names)
    for needed in ("vectors/manifest.json", "schema/corpus.schema.json", "harness/cli.py", "ci/gate.sh",
                   "tools/bench_hostile.py",
                   "spec.md", "runners/PROTOCOL.md", "CHANGELOG.md"):
        assert prefix + needed in names, needed
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]
    assert {(m.mtime, m.uid, m.gid, m.uname) for m in members} == {(0, 0, 0, "")}


# --- the gate, run as a client repository runs it --------------------------------------------
def gate(tmp_path, archive, digest, **env):
    client = tmp_path / "client-repo"          # the outside repository: nothing of ours in it but gate.sh
    (client / "ci").mkdir(parents=True, exist_ok=True)
    shutil.copy(REPO / "ci" / "gate.sh", client / "ci" / "gate.sh")
    base = {"PATH": os.environ["PATH"], "CORPUS_RELEASE": str(archive), "CORPUS_SHA256": digest,
            "RUNNER_NAME": "python", "RUNNER_COMMAND": PYTHON_RUNNER, "HARNESS_ARGS": SLICE, "TMPDIR": str(tmp_path)}
    env = {**base, **env}
    # One validated-corpus cache per release archive, shared by this module's gate runs (as a client's CI keeping
    # the harness's cache would): the first run validates the release's corpus, the next ones reuse that. The
    # manifest check runs every time; a changed file is another cache key.
    cache = f"--cache-dir {archive.parent / 'corpus-cache'}"
    env["HARNESS_ARGS"] = f"{env['HARNESS_ARGS']} {cache}"
    if env.get("BENCH_HOSTILE") == "1":
        env["BENCH_ARGS"] = f"{env.get('BENCH_ARGS', '')} {cache}"
    p = subprocess.run(["sh", "ci/gate.sh"], cwd=client, env=env, capture_output=True, text=True, timeout=300)
    return p, client / "conformance-out"


def test_gate_passes_a_conforming_runner_and_publishes_reports(dist, tmp_path):
    archive, digest = dist
    p, out = gate(tmp_path, archive, digest, CORPUS_VERSION=VERSION,
                  EXPECTED_FAILURES=str(REPO / "runners" / "python" / "expected-failures.txt"))
    assert p.returncode == 0, p.stdout + p.stderr
    assert f"files match manifest.json (corpus {VERSION}" in p.stderr
    assert re.search(rf"gate: PASS: python conforms to corpus {re.escape(VERSION)} \(\d+ verdicts: \d+ pass, \d+ info, \d+ xfail, 0 unclaimed\)",
                     p.stderr), p.stderr
    assert p.stdout.splitlines()[-1].endswith(" passed, 0 failed")
    junit = (out / "junit.xml").read_text()
    assert "<testsuite" in junit and 'failures="0"' in junit
    assert "passed, 0 failed" in (out / "summary.md").read_text()
    assert json.loads((out / "report.json").read_text())["totals"]["failed"] == 0
    assert not list(tmp_path.glob("ignite-wire-gate.*")), "the gate left its scratch directory behind"


def test_gate_fails_on_an_unexpected_result(dist, tmp_path):
    archive, digest = dist
    listing = tmp_path / "expected-failures.txt"
    listing.write_text("int.uint64.max  decode  pretend the library cannot read it\n")
    p, out = gate(tmp_path, archive, digest, EXPECTED_FAILURES=str(listing))
    assert p.returncode == 1, p.stdout + p.stderr
    assert "XPASS python int.uint64.max decode" in p.stdout
    assert "gate: FAIL" in p.stderr
    # Messages name the user's own file, not a copy in a scratch directory.
    assert f"python: to make {listing} match this run" in p.stdout, p.stdout
    assert (out / "junit.xml").exists() and (out / "summary.md").exists()


def test_gate_passes_a_half_done_runner_with_unclaimed_counts_unless_required(dist, tmp_path):
    """Only era 3.0, no Binary Tuples, no expected-failure entries: PASS, with the unclaimed ops counted on the
    PASS line and the badge; REQUIRE=format=binary-tuple makes the same runner fail, saying why."""
    archive, digest = dist
    half = {"RUNNER_NAME": "half-done", "RUNNER_COMMAND": f"{PY} -B {REPO / 'tests/harness_fixtures/half_done_runner.py'}",
            "HARNESS_ARGS": SLICE + " -k bt.int.tuple.int8.*"}
    p, out = gate(tmp_path, archive, digest, **half)
    assert p.returncode == 0, p.stdout + p.stderr
    report = json.loads((out / "report.json").read_text())
    counts = report["runners"][0]["counts"]
    assert counts["unclaimed"] > 0 and counts["xfail"] == 0
    assert (f"gate: PASS: half-done conforms to corpus {VERSION} where it claims to ({sum(counts.values())} verdicts: "
            f"{counts['pass']} pass, {counts['info']} info, 0 xfail, {counts['unclaimed']} unclaimed: the unclaimed "
            "ones were not checked)") in p.stderr
    assert json.loads((out / "badges" / "half-done.json").read_text())["message"].endswith(
        f" pass, {counts['unclaimed']} unclaimed")
    p, out = gate(tmp_path, archive, digest, REQUIRE="era=3.0,format=binary-tuple", **half)
    assert p.returncode == 1, p.stdout + p.stderr
    assert "UNMET half-done: --require format=binary-tuple: the runner does not claim format 'binary-tuple'" in p.stdout
    assert "; required but not claimed: format=binary-tuple)" in p.stderr and "gate: FAIL" in p.stderr


def test_gate_that_checked_nothing_says_so_and_fails_unless_allowed(dist, tmp_path):
    """Every verdict unclaimed (the half-done runner claims no Binary Tuples; only those are run): not a PASS."""
    archive, digest = dist
    half = {"RUNNER_NAME": "half-done", "RUNNER_COMMAND": f"{PY} -B {REPO / 'tests/harness_fixtures/half_done_runner.py'}",
            "HARNESS_ARGS": "-k bt.int.tuple.int8.*"}
    p, out = gate(tmp_path, archive, digest, **half)
    counts = json.loads((out / "report.json").read_text())["runners"][0]["counts"]
    assert counts["unclaimed"] == sum(counts.values()) > 0
    assert p.returncode == 1, p.stdout + p.stderr
    assert (f"gate: NOTHING CHECKED: no verdict of half-done on corpus {VERSION} compared anything "
            f"({counts['unclaimed']} verdicts: 0 pass, 0 info, 0 xfail, {counts['unclaimed']} unclaimed)") in p.stderr
    assert "PASS" not in p.stderr
    # One mechanism: the harness decides (its last line), the gate words it and passes ALLOW_NOTHING_CHECKED on.
    assert p.stdout.splitlines()[-1].endswith(": NOTHING CHECKED (every verdict unclaimed), exit status 1 "
                                              "(--allow-nothing-checked to accept it)")
    p, _ = gate(tmp_path, archive, digest, ALLOW_NOTHING_CHECKED="1", **half)
    assert p.returncode == 0 and "gate: NOTHING CHECKED: " in p.stderr and "PASS" not in p.stderr
    assert p.stdout.splitlines()[-1].endswith(": NOTHING CHECKED (every verdict unclaimed); exit status 0 by "
                                              "--allow-nothing-checked")


def test_gate_measures_the_users_runner_on_hostile_input(dist, tmp_path):
    """BENCH_HOSTILE=1 runs the release's tools/bench_hostile.py --command on the gate's runner; a missed goal
    fails the gate."""
    archive, digest = dist
    # The time goal a minute per vector: a loaded machine may stall one for more than the default second, and that
    # is not what this test is about (the per-vector time is make bench-hostile's figure).
    p, out = gate(tmp_path, archive, digest, BENCH_HOSTILE="1", BENCH_ARGS="-k reserved.c1.* --max-ms 60000",
                  EXPECTED_FAILURES=str(REPO / "runners" / "python" / "expected-failures.txt"))
    assert p.returncode == 0, p.stdout + p.stderr
    rows = json.loads((out / "bench-hostile.json").read_text())["rows"]
    assert [r["runner"] for r in rows] == ["python"] and rows[0]["vectors"] > 0 and rows[0]["peak_rss_mib"] > 0
    p, out = gate(tmp_path, archive, digest, BENCH_HOSTILE="1", BENCH_ARGS="-k reserved.c1.* --max-rss-mib 1",
                  EXPECTED_FAILURES=str(REPO / "runners" / "python" / "expected-failures.txt"))
    assert p.returncode == 1
    assert "GOAL MISSED python: peak RSS" in p.stdout and "hostile benchmark: a goal was missed" in p.stderr


def test_gate_names_the_same_script_everywhere():
    """Docs and the workflow tell users to run the gate under the name this repository ships it as."""
    texts = {name: (REPO / name).read_text() for name in
             ("README.md", "ci/README.md", "ci/github-actions.yml", "docs/add-your-client.md", "ci/gate.sh")}
    for name, text in texts.items():
        for script in re.findall(r"\bsh (\S+\.sh)\b", text):
            assert script == "ci/gate.sh", f"{name} says 'sh {script}'"
    assert "sh ci/gate.sh" in texts["ci/github-actions.yml"]


def test_gate_refuses_a_tampered_release(dist, tmp_path):
    archive, _ = dist
    unpacked = tmp_path / "unpacked"
    with tarfile.open(archive) as tar:
        tar.extractall(unpacked)
    root = next(unpacked.iterdir())
    vector_file = root / "vectors" / "int.json"
    vector_file.write_text(vector_file.read_text().replace('"canonical":"00"', '"canonical":"d000"', 1))
    tampered = tmp_path / archive.name
    with tarfile.open(tampered, "w:gz") as tar:
        tar.add(root, arcname=root.name)
    digest = hashlib.sha256(tampered.read_bytes()).hexdigest()     # the SHA-256 alone would not catch it
    p, out = gate(tmp_path, tampered, digest)
    assert p.returncode == 2, p.stdout + p.stderr
    assert "refusing to run a tampered or partial corpus" in p.stderr
    assert "changed: int.json (sha256 " in p.stderr
    assert "gate: the harness refused to run" in p.stderr
    assert not (out / "junit.xml").exists()


def test_gate_refuses_a_wrong_sha256(dist, tmp_path):
    archive, digest = dist
    wrong = ("0" if digest[0] != "0" else "1") + digest[1:]
    p, out = gate(tmp_path, archive, wrong)
    assert p.returncode == 2
    assert f"SHA-256 mismatch for {archive}: expected {wrong}, got {digest}; refusing this corpus" in p.stderr
    assert not (out / "report.json").exists()


def test_workflow_template_drives_the_gate():
    workflow = yaml.safe_load((REPO / "ci" / "github-actions.yml").read_text())
    script = (REPO / "ci" / "gate.sh").read_text()
    steps = workflow["jobs"]["conformance"]["steps"]
    gate_step = next(s for s in steps if "gate.sh" in s.get("run", ""))
    for name in [*workflow["env"], *gate_step["env"]]:
        assert re.search(rf"^#   {name} ", script.split("set -eu")[0], re.M), f"the workflow sets {name}, which gate.sh does not document"
        assert "${" + name in script, f"the workflow sets {name}, which gate.sh does not read"
    for required in ("CORPUS_RELEASE", "CORPUS_SHA256", "RUNNER_NAME", "RUNNER_COMMAND"):
        assert required in {*workflow["env"], *gate_step["env"]}, required
    assert any("GITHUB_STEP_SUMMARY" in s.get("run", "") and s.get("if") == "always()" for s in steps)
    uploads = [s for s in steps if s.get("uses", "").startswith("actions/upload-artifact")]
    assert uploads and "junit.xml" in uploads[0]["with"]["path"] and uploads[0].get("if") == "always()"


def test_gate_is_posix_sh():
    """dash is the strictest /bin/sh at hand: it must at least parse the script."""
    dash = shutil.which("dash")
    if dash is None:
        pytest.skip("no dash")
    assert subprocess.run([dash, "-n", str(REPO / "ci" / "gate.sh")]).returncode == 0
