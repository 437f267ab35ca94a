"""The Python package (packages/python): the wheel built by make packages installs into a scratch venv (system
packages visible, nothing from an index) and a consumer's pytest there loads the corpus, counts it against the
manifest, decodes ten vectors, reads the shared skip file as the harness does and gets the tamper refusal."""
import os
import subprocess
import tarfile
import zipfile

import pytest

from package_fixtures import packages_helper

PY = "/usr/bin/python3"
CONSUMER_DIR = packages_helper.REPO / "packages" / "python" / "consumer"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return packages_helper.built(tmp_path_factory, "python", [PY],
                                 "Debian's python3 with python3-build, python3-venv and python3-pip (make setup-all)")


def _one(out, pattern):
    found = sorted(out.glob(pattern))
    assert len(found) == 1, f"{out}: expected one {pattern}, found {[p.name for p in found]}"
    return found[0]


def test_wheel_and_sdist_carry_the_stage_byte_for_byte(built):
    stage, out = built
    version = (stage / "VERSION").read_text().strip()
    wheel = _one(out, f"ignite_wire_corpus-{version}-py3-none-any.whl")
    sdist = _one(out, f"ignite-wire-corpus-{version}.tar.gz")
    corpus = {p.name: p.read_bytes() for p in (stage / "vectors").iterdir()}
    with zipfile.ZipFile(wheel) as z:
        in_wheel = {n.rsplit("/", 1)[1]: z.read(n) for n in z.namelist() if n.startswith("ignite_wire_corpus/vectors/")}
    with tarfile.open(sdist) as t:
        prefix = f"ignite-wire-corpus-{version}/src/ignite_wire_corpus/vectors/"
        in_sdist = {m.name[len(prefix):]: t.extractfile(m).read() for m in t.getmembers() if m.name.startswith(prefix)}
    assert in_wheel == corpus and in_sdist == corpus


def test_the_sdist_builds_offline_into_the_same_package_files(built, tmp_path):
    """A user without the wheel (or a distribution packager) builds it from the sdist with their setuptools."""
    _, out = built
    subprocess.run([PY, "-m", "pip", "wheel", "--quiet", "--no-index", "--no-build-isolation", "--no-deps",
                    "-w", str(tmp_path), str(_one(out, "*.tar.gz"))], check=True,
                   env=dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1"))

    def package_files(wheel):
        with zipfile.ZipFile(wheel) as z:
            return {n: z.read(n) for n in z.namelist() if n.startswith("ignite_wire_corpus/")}
    assert package_files(_one(tmp_path, "*.whl")) == package_files(_one(out, "*.whl"))


@pytest.fixture(scope="module")
def consumer(built, tmp_path_factory):
    """A scratch venv (system packages visible: pytest, msgpack) with the wheel installed from the file alone, and
    a project directory; made once per session."""
    stage, out = built

    def env_of(where):
        return dict(os.environ, VIRTUAL_ENV=str(where / "venv"), IWC_EXPECTED=str(where / "expected.json"),
                    PIP_DISABLE_PIP_VERSION_CHECK="1", PYTHONDONTWRITEBYTECODE="1")

    def setup(where):
        subprocess.run([PY, "-m", "venv", "--system-site-packages", "--without-pip", str(where / "venv")], check=True)
        subprocess.run([str(where / "venv" / "bin" / "python"), "-m", "pip", "install", "--quiet", "--no-index",
                        "--no-deps", str(_one(out, "*.whl"))], check=True, env=env_of(where))
        (where / "project").mkdir()

    where = packages_helper.consumer_dir(tmp_path_factory, stage, "python", setup)
    return str(where / "venv" / "bin" / "python"), env_of(where), where / "project"


def _pytest(consumer, test_file, **env):
    py, base_env, project = consumer
    (project / test_file).write_text((CONSUMER_DIR / test_file).read_text())
    return subprocess.run([py, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", "-rfE", test_file],
                          cwd=project, env=dict(base_env, **env), capture_output=True, text=True)


def test_a_consumer_venv_installs_the_wheel_and_its_tests_pass(consumer):
    r = _pytest(consumer, "test_consumer.py")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "9 passed" in r.stdout, r.stdout


def test_the_unit_route_example_runs_with_the_shared_skip_file(built, consumer):
    """docs/add-your-client.md's Python example: every int decode op passes but those skips.txt lists, which
    pass too and so fail as strict xfails (the gate's xpass)."""
    passing, listed = packages_helper.unit_route_counts(built[0])
    r = _pytest(consumer, "test_unit_route.py", SKIP_FILE=str(packages_helper.TESTDATA / "skips.txt"))
    assert f"{listed} failed, {passing} passed" in r.stdout, r.stdout + r.stderr
    failed = [line for line in r.stdout.splitlines() if line.startswith("FAILED")]
    assert len(failed) == listed and all("[int.fixint.p1 decode" in f for f in failed), failed
    assert r.stdout.count("[XPASS(strict)] exact id,") == listed, r.stdout
