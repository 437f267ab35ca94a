"""packages/build.py (make packages): the stage is the release tarball's corpus byte for byte with its version and
hash, a tarball that is not the release or holds a tampered corpus is refused, a failing build.sh stops the build
with its name; packages/testdata/skips-expected.json is what the harness's matcher says today."""
import hashlib
import io
import json
import re
import subprocess
import tarfile

import pytest

from package_fixtures import packages_helper

build = packages_helper.build


def test_the_stage_is_the_releases_corpus_with_its_version_and_hash(tmp_path_factory):
    stage = packages_helper.stage(tmp_path_factory)
    tarball = next((stage.parent / "dist").glob("ignite-wire-corpus-*.tar.gz"))
    with tarfile.open(tarball) as t:
        released = {m.name.rsplit("/", 1)[1]: t.extractfile(m).read() for m in t.getmembers()
                    if m.isfile() and m.name.split("/")[1] == "vectors"}
    assert {p.name: p.read_bytes() for p in (stage / "vectors").iterdir()} == released
    assert (stage / "RELEASE_SHA256").read_text() == hashlib.sha256(tarball.read_bytes()).hexdigest() + "\n"
    assert (stage / "VERSION").read_text() == tarball.name[len("ignite-wire-corpus-"):-len(".tar.gz")] + "\n"


def _rewrite(src, dst, change):
    """dst: src's tarball with change(name, data) -> data applied to every file."""
    with tarfile.open(src) as t, tarfile.open(dst, "w:gz") as out:
        for m in t.getmembers():
            data = change(m.name, t.extractfile(m).read()) if m.isfile() else None
            if data is not None:
                m.size = len(data)
            out.addfile(m, io.BytesIO(data) if data is not None else None)


def test_a_tarball_other_than_sha256sums_names_or_with_a_tampered_corpus_is_refused(tmp_path_factory, tmp_path):
    stage = packages_helper.stage(tmp_path_factory)
    tarball = next((stage.parent / "dist").glob("ignite-wire-corpus-*.tar.gz"))
    tampered = tmp_path / tarball.name
    _rewrite(tarball, tampered, lambda n, d: d.replace(b'"era":"msgpack"', b'"era":"alpha3"', 1)
             if n.endswith("/vectors/int.json") else d)
    with pytest.raises(build.BuildError, match=r"(?s)corpus does not match its manifest: .*changed: int.json"):
        build.make_stage(tampered, tmp_path / "stage")
    (tmp_path / "SHA256SUMS").write_text(f"{hashlib.sha256(tarball.read_bytes()).hexdigest()}  {tarball.name}\n")
    with pytest.raises(build.BuildError, match=r"sha256 [0-9a-f]{64}, .*SHA256SUMS says"):
        build.make_stage(tampered, tmp_path / "stage")


def test_a_failing_build_script_stops_the_build_with_its_name(tmp_path_factory, tmp_path):
    stage = packages_helper.stage(tmp_path_factory)
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "build.sh").write_text('echo "broken: needs a toolchain" >&2; exit 2\n')
    (tmp_path / "silent").mkdir()
    (tmp_path / "silent" / "build.sh").write_text("exit 0\n")
    with pytest.raises(build.BuildError, match=r"broken/build.sh failed \(exit 2\)"):
        build.build_one("broken", stage, tmp_path / "out", packages=tmp_path)
    with pytest.raises(build.BuildError, match=r"silent/build.sh exited 0 but wrote nothing"):
        build.build_one("silent", stage, tmp_path / "out", packages=tmp_path)


def test_the_skip_expectations_are_what_the_harness_says():
    r = subprocess.run(["/usr/bin/python3", str(packages_helper.TESTDATA / "make_skips_expected.py"), "--check"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_the_skip_file_doc_shows_the_testdata_skip_file():
    doc = (packages_helper.REPO / "docs" / "skip-file.md").read_text()
    example = doc.split("## Example", 1)[1].split("```\n", 2)[1]
    entries = [line for line in (packages_helper.TESTDATA / "skips.txt").read_text().splitlines()
               if line and not line.startswith("#")]
    assert example.splitlines() == entries


def test_the_unit_test_route_quotes_the_examples_the_package_tests_run():
    doc = (packages_helper.REPO / "docs" / "add-your-client.md").read_text()
    section = doc.split("\n## The unit-test route\n", 1)[1].split("\n## ", 1)[0]
    for fence, example in (("python", "python/consumer/test_unit_route.py"), ("js", "npm/consumer/unit-route.test.mjs")):
        lines = set((packages_helper.REPO / "packages" / example).read_text().splitlines())
        [block] = re.findall(rf"```{fence}\n(.*?)```", section, re.S)
        assert [line for line in block.splitlines() if line not in lines] == [], example


def test_the_readme_names_the_corpus_and_spec_version_the_packages_carry():
    registry = json.loads((packages_helper.REPO / "schema" / "registry.json").read_text())
    readme = (packages_helper.REPO / "packages" / "README.md").read_text()
    assert f"**corpus {registry['corpus_version']} (spec {registry['spec_version']})**" in readme
