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


def _tool(name):
    path = shutil.which(name)
    assert path, f"{name} is missing: install Node.js 18+ and npm (Debian: tools/need-deb nodejs npm)"
    return path


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    _tool("npm")
    stage = packages_helper.stage(tmp_path_factory)
    out = packages_helper.artifact(tmp_path_factory, "npm")
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
    r = subprocess.run([_tool("node"), "--input-type=module", "-e",
                        f"console.log(Object.keys(await import({json.dumps(str(NPM / 'index.js'))})).join(' '))"],
                       capture_output=True, text=True, check=True)
    assert set(r.stdout.split()) == declared


def test_a_consumer_project_installs_the_tarball_and_its_tests_pass(built, tmp_path):
    stage, tarball = built
    packages_helper.expectations(stage, tmp_path)
    project = tmp_path / "consumer"
    project.mkdir()
    (project / "package.json").write_text(json.dumps({"name": "consumer", "private": True, "type": "module"}))
    shutil.copy(NPM / "consumer" / "consumer.test.mjs", project)
    env = dict(os.environ, IWC_EXPECTED=str(tmp_path / "expected.json"), npm_config_cache=str(tmp_path / "npm-cache"),
               npm_config_update_notifier="false", npm_config_fund="false", npm_config_audit="false")
    subprocess.run([_tool("npm"), "install", "--offline", "--silent", str(tarball)], cwd=project, env=env, check=True)
    r = subprocess.run([_tool("node"), "--test", "consumer.test.mjs"], cwd=project, env=env,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert re.search(r"^# pass 7$", r.stdout, re.M) and re.search(r"^# fail 0$", r.stdout, re.M), r.stdout
