"""The Rust crate (packages/rust): built from the release with `cargo package` offline, unpacked into a scratch
consumer crate's path dependency, whose `cargo test` (offline, Debian's crates) checks the corpus against numbers
computed here from the stage."""
import os
import shutil
import tarfile

import pytest

from package_consumer import CONSUMERS, build, expectations, need, run

LIMIT = 10 * 1024 * 1024    # crates.io's upload limit


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    need("cargo", "cargo (tools/need-deb cargo, or a rustup toolchain)")
    tmp = tmp_path_factory.mktemp("rust-package")
    # One target dir for cargo package's build and the consumer's: the dependencies are compiled once.
    stage, out = build("rust", tmp, env=dict(os.environ, CARGO_TARGET_DIR=str(tmp / "target")))
    version = (stage / "VERSION").read_text().strip()
    crate = out / f"ignite-wire-corpus-{version}.crate"
    return tmp, stage, crate


def test_crate_holds_the_release_corpus(built):
    tmp, stage, crate = built
    assert crate.stat().st_size < LIMIT
    with tarfile.open(crate) as tar:
        top = crate.name[:-len(".crate")]
        for f in (stage / "vectors").iterdir():
            assert tar.extractfile(f"{top}/vectors/{f.name}").read() == f.read_bytes(), f.name
        assert {n for n in tar.getnames() if n.startswith(f"{top}/vectors/")} == \
            {f"{top}/vectors/{f.name}" for f in (stage / "vectors").iterdir()}


def test_consumer_crate(built):
    tmp, stage, crate = built
    with tarfile.open(crate) as tar:
        tar.extractall(tmp / "unpacked")
    consumer = tmp / "consumer"
    shutil.copytree(CONSUMERS / "rust", consumer)
    (consumer / "src").mkdir()
    (consumer / "src" / "lib.rs").write_text("")
    unpacked = tmp / "unpacked" / crate.name[:-len(".crate")]
    (consumer / "Cargo.toml").write_text(
        '[package]\nname = "consumer"\nversion = "0.0.0"\nedition = "2021"\npublish = false\n\n'
        f'[dev-dependencies]\nignite-wire-corpus = {{ path = "{unpacked}" }}\nserde_json = "1.0.87"\n')
    (consumer / ".cargo").mkdir()
    (consumer / ".cargo" / "config.toml").write_text(
        '[source.crates-io]\nreplace-with = "debian"\n[source.debian]\ndirectory = "/usr/share/cargo/registry"\n'
        '[net]\noffline = true\n')
    env = dict(os.environ, CARGO_TARGET_DIR=str(tmp / "target"), CORPUS_EXPECTED=str(expectations(stage, tmp)))
    done = run(["cargo", "test", "--offline", "--test", "corpus"], cwd=consumer, env=env)
    assert "test result: ok. 4 passed" in done.stdout, done.stdout
