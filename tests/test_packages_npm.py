"""The npm package (packages/npm): the tarball built by make packages installs offline into a scratch project and
a consumer's node:test there loads the corpus, counts it against the manifest, decodes ten vectors, reads the
shared skip file as the harness does and gets the tamper refusal."""
import json
import os
import re
import shutil
import subprocess
import tarfile

import pytest

from package_fixtures import packages_helper

NPM = packages_helper.REPO / "packages" / "npm"


NODE = "Node.js 18+ and npm (Debian: tools/need-deb nodejs npm)"
TSC = packages_helper.REPO / "runners" / "js" / "node_modules" / ".bin" / "tsc"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    stage, out = packages_helper.built(tmp_path_factory, "npm", ["npm", "node"], NODE)
    version = (stage / "VERSION").read_text().strip()
    tarball = out / f"ignite-wire-corpus-{version}.tgz"
    assert sorted(p.name for p in out.iterdir()) == [tarball.name]
    return stage, tarball


def test_the_tarball_carries_the_stage_byte_for_byte(built):
    stage, tarball = built
    with tarfile.open(tarball) as t:
        names = t.getnames()
        packed = {n[len("package/vectors/"):]: t.extractfile(n).read() for n in names if n.startswith("package/vectors/")}
        manifest = json.loads(t.extractfile("package/package.json").read())
    assert packed == {p.name: p.read_bytes() for p in (stage / "vectors").iterdir()}
    assert manifest["version"] == (stage / "VERSION").read_text().strip()
    assert {"package/index.js", "package/index.d.ts", "package/README.md"} <= set(names)


def test_the_types_declare_what_the_module_exports():
    declared = set(re.findall(r"^export (?:declare )?(?:const|function|class) (\w+)", (NPM / "index.d.ts").read_text(), re.M))
    r = subprocess.run([packages_helper.tool("node", NODE), "--input-type=module", "-e",
                        f"console.log(Object.keys(await import({json.dumps(str(NPM / 'index.js'))})).join(' '))"],
                       capture_output=True, text=True, check=True)
    assert set(r.stdout.split()) == declared


@pytest.fixture(scope="module")
def consumer(built, tmp_path_factory):
    """A scratch project with the tarball installed offline (npm install of the file, nothing fetched); made once
    per session."""
    stage, tarball = built

    def env_of(where):
        return dict(os.environ, IWC_EXPECTED=str(where / "expected.json"), npm_config_cache=str(where / "npm-cache"),
                    npm_config_update_notifier="false", npm_config_fund="false", npm_config_audit="false")

    def setup(where):
        project = where / "project"
        project.mkdir()
        (project / "package.json").write_text(json.dumps({"name": "consumer", "private": True, "type": "module"}))
        for f in (NPM / "consumer").iterdir():
            shutil.copy(f, project)
        subprocess.run([packages_helper.tool("npm", NODE), "install", "--offline", "--silent", str(tarball)],
                       cwd=project, env=env_of(where), check=True)

    where = packages_helper.consumer_dir(tmp_path_factory, stage, "npm", setup)
    return where / "project", env_of(where)


def _node_test(consumer, test_file, **env):
    project, base_env = consumer
    return subprocess.run([packages_helper.tool("node", NODE), "--test", test_file], cwd=project,
                          env=dict(base_env, **env), capture_output=True, text=True)


def _summary(r, key):
    return int(re.search(rf"^# {key} (\d+)$", r.stdout, re.M).group(1))


def test_a_consumer_project_installs_the_tarball_and_its_tests_pass(consumer):
    r = _node_test(consumer, "consumer.test.mjs")
    assert r.returncode == 0, r.stdout + r.stderr
    assert (_summary(r, "pass"), _summary(r, "fail")) == (9, 0), r.stdout


def test_the_unit_route_example_runs_with_the_shared_skip_file(built, consumer):
    """docs/add-your-client.md's JavaScript example: every int decode op passes but those skips.txt lists, which
    pass too and so fail (the gate's xpass)."""
    passing, listed = packages_helper.unit_route_counts(built[0])
    r = _node_test(consumer, "unit-route.test.mjs", SKIP_FILE=str(packages_helper.TESTDATA / "skips.txt"))
    assert (_summary(r, "pass"), _summary(r, "fail")) == (passing, listed), r.stdout[-3000:] + r.stderr
    failed = re.findall(r"^not ok \d+ - (.*)$", r.stdout, re.M)
    assert len(failed) == listed and all(f.startswith("int.fixint.p1 decode") for f in failed), failed
    assert r.stdout.count("listed as failing (exact id,") == listed


def test_a_typed_consumer_compiles_against_the_installed_types(consumer):
    """types-check.ts uses every export with its declared types; tsc --strict (the js runner's pinned typescript)
    compiles it against the installed package's index.d.ts."""
    assert TSC.exists(), f"{TSC} is missing: make -C runners/js setup (make pytest runs it)"
    project, env = consumer
    r = subprocess.run([str(TSC), "-p", "."], cwd=project, env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
