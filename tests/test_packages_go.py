"""The Go package (packages/go): built from the release, used by a scratch module through a replace directive,
whose `go test` (offline: GOPROXY=off) checks the corpus against numbers computed here from the stage."""
import os
import shutil

import pytest

from package_consumer import CONSUMERS, build, expectations, need, run


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    need("go", "golang-go (tools/need-deb golang-go)")
    tmp = tmp_path_factory.mktemp("go-package")
    stage, out = build("go", tmp)
    return tmp, stage, out / "wirecorpus"


def test_module_holds_the_release_corpus(built):
    _, stage, module = built
    for f in (stage / "vectors").iterdir():
        assert (module / "vectors" / f.name).read_bytes() == f.read_bytes(), f.name
    assert {p.name for p in (module / "vectors").iterdir()} == {p.name for p in (stage / "vectors").iterdir()}
    assert "corpus " + (stage / "VERSION").read_text().strip() in (module / "README.md").read_text()


def test_consumer_module(built):
    tmp, stage, module = built
    consumer = tmp / "consumer"
    shutil.copytree(CONSUMERS / "go", consumer)
    (consumer / "go.mod").write_text(
        "module consumer\n\ngo 1.19\n\nrequire ignite-conformance.example/wirecorpus v0.0.0\n\n"
        f"replace ignite-conformance.example/wirecorpus => {module}\n")
    env = dict(os.environ, GOFLAGS="-mod=mod", GOPROXY="off", GOTOOLCHAIN="local", GO111MODULE="on",
               GOCACHE=str(tmp / "go-cache"), CORPUS_EXPECTED=str(expectations(stage, tmp)))
    done = run(["go", "test", "-count=1", "-v", "."], cwd=consumer, env=env)
    for name in ("TestVersionsAndCounts", "TestTenVectors", "TestSkipList", "TestLoadDirAndTamperRefusal"):
        assert f"--- PASS: {name}" in done.stdout, done.stdout
