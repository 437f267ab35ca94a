"""make verify installs only what verify needs; the browser test's packages come with make pytest / make test."""

import json
import subprocess

from harness_fixtures.harness_helpers import REPO

BROWSER_AND_TESTS = ("chromium", "chromium-driver", "python3-selenium", "python3-pytest", "python3-lxml",
                     "python3-junitparser", "python3-hypothesis")


def installs(target):
    """The Debian packages `make -n TARGET` would ask tools/need-deb for (the runners' own setups left out)."""
    p = subprocess.run(["make", "-n", "--no-print-directory", target, "RUNNERS=", "ALL_RUNNERS="], cwd=REPO,
                       capture_output=True, text=True, timeout=60, check=True)
    return {word for line in p.stdout.splitlines() if "tools/need-deb" in line for word in line.split()[1:]}


def test_verify_installs_only_the_harness_packages():
    assert installs("verify") == {"python3-jsonschema", "python3-yaml"}


def test_pytest_installs_the_browser_test_packages():
    assert set(BROWSER_AND_TESTS) <= installs("pytest")
    assert "python3-hypothesis" in installs("fuzz") and "chromium" not in installs("fuzz")


def test_need_deb_asks_apt_only_for_what_dpkg_does_not_have_installed(tmp_path):
    # apt-get and sudo replaced by scripts that log their arguments: nothing is installed.
    log = tmp_path / "apt.log"
    for name, body in (("apt-get", f'echo "$*" >> {log}'), ("sudo", '"$@"')):
        (tmp_path / name).write_text(f"#!/bin/sh\n{body}\n")
        (tmp_path / name).chmod(0o755)
    env = {"PATH": f"{tmp_path}:/usr/bin:/bin"}
    need = [str(REPO / "tools" / "need-deb")]
    assert subprocess.run(need + ["dpkg", "coreutils"], env=env, timeout=60).returncode == 0
    assert not log.exists()         # both installed: apt is not asked
    subprocess.run(need + ["dpkg", "no-such-package-x", "coreutils", "dpkg-dev-no-such"], env=env, timeout=60,
                   check=True, capture_output=True)
    calls = log.read_text().splitlines()
    assert len(calls) == 2 and calls[0].endswith("update -qq"), calls
    assert calls[1].endswith("--no-install-recommends no-such-package-x dpkg-dev-no-such"), calls


def test_verify_requires_every_protocol_format_of_the_in_repo_runners():
    """A new wire form (a format in protocol.schema.json) fails make verify until every runner claims it: make
    verify passes format=*, which the harness reads as every format of that schema."""
    from harness import capabilities
    formats = json.loads((REPO / "schema" / "protocol.schema.json").read_text())["$defs"]["format"]["enum"]
    p = subprocess.run(["make", "-n", "--no-print-directory", "verify", "RUNNERS=python", "ALL_RUNNERS=python"],
                       cwd=REPO, capture_output=True, text=True, timeout=60, check=True)
    harness = [line for line in p.stdout.splitlines() if "-m harness verify" in line]
    assert len(harness) == 1, p.stdout
    words = harness[0].split()
    required = words[words.index("--require") + 1].strip("'").split(",")
    assert capabilities.parse(required) == [("format", f) for f in formats]
