"""The Rust crate (packages/rust): the .crate make packages builds (cargo package, offline against Debian's
crates), unpacked as a scratch consumer crate's path dependency, whose `cargo test` (offline) loads the corpus,
counts it against the manifest, decodes ten vectors, reads the shared skip file as the harness does and gets the
tamper refusal."""
import os
import shutil
import tarfile

import pytest

from package_fixtures import packages_helper
from package_fixtures.consumer_run import run

CONSUMER = packages_helper.REPO / "packages" / "rust" / "consumer" / "corpus.rs"
CRATES_IO_LIMIT = 10 * 1024 * 1024
# The consumer resolves serde_json like the crate: from Debian's packaged registry, offline.
CARGO_CONFIG = ('[source.crates-io]\nreplace-with = "debian"\n[source.debian]\ndirectory = "/usr/share/cargo/registry"\n'
                '[net]\noffline = true\n')


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    stage, out = packages_helper.built(tmp_path_factory, "rust", ["cargo"],
                                       "a rust toolchain (rustup's 1.82 or newer) and Debian's librust-serde-json-dev, "
                                       "librust-sha2-dev (make setup-all)")
    name = f"ignite-wire-corpus-{(stage / 'VERSION').read_text().strip()}"
    assert sorted(p.name for p in out.iterdir()) == [f"{name}.crate"]
    return stage, out / f"{name}.crate", name


def test_crate_carries_the_stage_byte_for_byte(built):
    stage, crate, name = built
    assert crate.stat().st_size < CRATES_IO_LIMIT
    prefix = f"{name}/vectors/"
    with tarfile.open(crate) as tar:
        packed = {m.name[len(prefix):]: tar.extractfile(m).read() for m in tar.getmembers()
                  if m.name.startswith(prefix)}
        assert f'version = "{name.rsplit("-", 1)[1]}"' in tar.extractfile(f"{name}/Cargo.toml").read().decode()
    assert packed == {p.name: p.read_bytes() for p in (stage / "vectors").iterdir()}


def test_consumer_crate(built, tmp_path):
    stage, crate, name = built
    packages_helper.expectations(stage, tmp_path)
    with tarfile.open(crate) as tar:
        tar.extractall(tmp_path / "unpacked")
    consumer = tmp_path / "consumer"
    (consumer / "tests").mkdir(parents=True)
    (consumer / "src").mkdir()
    (consumer / "src" / "lib.rs").write_text("")
    shutil.copy(CONSUMER, consumer / "tests" / "corpus.rs")
    (consumer / "Cargo.toml").write_text(
        '[package]\nname = "consumer"\nversion = "0.0.0"\nedition = "2021"\npublish = false\n\n'
        f'[dev-dependencies]\nignite-wire-corpus = {{ path = "{tmp_path / "unpacked" / name}" }}\n'
        'serde_json = "1.0.87"\n')
    (consumer / ".cargo").mkdir()
    (consumer / ".cargo" / "config.toml").write_text(CARGO_CONFIG)
    env = dict(os.environ, CARGO_TARGET_DIR=str(tmp_path / "target"), CORPUS_EXPECTED=str(tmp_path / "expected.json"),
               CORPUS_DIR=str(stage / "vectors"))
    done = run(["cargo", "test", "--offline", "--quiet", "--test", "corpus"], consumer, env)
    assert "test result: ok. 6 passed" in done.stdout, done.stdout
