"""The Go package (packages/go): the module directory make packages builds, used by a scratch module through a
replace directive, whose `go test` (offline: GOPROXY=off) loads the corpus, counts it against the manifest,
decodes ten vectors, reads the shared skip file as the harness does and gets the tamper refusal."""
import os
import shutil

import pytest

from package_fixtures import packages_helper
from package_fixtures.consumer_run import run

CONSUMER = packages_helper.REPO / "packages" / "go" / "consumer"
MODULE = "ignite-conformance.example/wirecorpus"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    stage, out = packages_helper.built(tmp_path_factory, "go", ["go"], "golang-go (make setup-all)")
    return stage, out / "wirecorpus"


def test_module_carries_the_stage_byte_for_byte(built):
    stage, module = built
    corpus = {p.name: p.read_bytes() for p in (stage / "vectors").iterdir()}
    assert {p.name: p.read_bytes() for p in (module / "vectors").iterdir()} == corpus
    assert f"module {MODULE}\n" in (module / "go.mod").read_text()
    assert "corpus " + (stage / "VERSION").read_text().strip() in (module / "README.md").read_text()


def test_consumer_module(built, tmp_path):
    stage, module = built
    packages_helper.expectations(stage, tmp_path)
    consumer = tmp_path / "consumer"
    shutil.copytree(CONSUMER, consumer)
    (consumer / "go.mod").write_text(f"module consumer\n\ngo 1.19\n\nrequire {MODULE} v0.0.0\n\n"
                                     f"replace {MODULE} => {module}\n")
    env = dict(os.environ, GOFLAGS="-mod=mod", GOPROXY="off", GOTOOLCHAIN="local", GO111MODULE="on",
               GOCACHE=str(tmp_path / "go-cache"), CORPUS_EXPECTED=str(tmp_path / "expected.json"),
               CORPUS_DIR=str(stage / "vectors"))
    done = run(["go", "test", "-count=1", "-v", "."], consumer, env)
    for name in ("TestVersionsAndCounts", "TestTenVectors", "TestFrameVector", "TestSkipList", "TestSkipListRefusesTheLinesTheHarnessRefuses",
                 "TestLoadDirAndTamperRefusal"):
        assert f"--- PASS: {name}" in done.stdout, done.stdout
