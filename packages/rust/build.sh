#!/bin/sh
# packages/rust/build.sh STAGE OUT: OUT/ignite-wire-corpus-<VERSION>.crate, the crate with STAGE/vectors included
# (build.rs: include_bytes!), made by `cargo package` offline against Debian's crates (/usr/share/cargo/registry),
# which also compiles it from the packed file before it is kept. 828 KB for corpus 1.2.0 (crates.io takes 10 MB).
# Publishing (a maintainer, with a crates.io token): unpack the .crate and run `cargo publish` in it, outside
# this directory's .cargo config (cargo resolves serde_json and sha2 from crates.io then).
set -eu
. "$(dirname "$0")/../build-common.sh"
CARGO=${CARGO:-cargo}
command -v "$CARGO" >/dev/null || { echo "rust package: no cargo on PATH (Debian: tools/need-deb cargo)" >&2; exit 1; }
for crate in serde_json-1 sha2-0.10; do
  ls -d /usr/share/cargo/registry/${crate}* >/dev/null 2>&1 || {
    echo "rust package: no $crate in /usr/share/cargo/registry (tools/need-deb librust-serde-json-dev librust-sha2-dev)" >&2
    exit 1; }
done

# The crate is laid out and packed in a temp dir (outside any git work tree), next to the .cargo/config.toml
# that points crates-io at Debian's registry.
work=$(mktemp -d) && trap 'rm -rf "$work"' EXIT
mkdir -p "$work/.cargo" "$work/crate"
printf '[source.crates-io]\nreplace-with = "debian"\n[source.debian]\ndirectory = "/usr/share/cargo/registry"\n[net]\noffline = true\n' \
  > "$work/.cargo/config.toml"
cp -R "$here/crate/src" "$here/crate/build.rs" "$stage/vectors" "$work/crate/"
fill "$here/crate/Cargo.toml.in" > "$work/crate/Cargo.toml"
fill "$here/README.md.in" > "$work/crate/README.md"
(cd "$work/crate" && CARGO_TARGET_DIR="$work/target" "$CARGO" package --offline --quiet) || {
  echo "rust package: cargo package failed (above)" >&2; exit 1; }
mkdir -p "$out"
cp "$work/target/package/ignite-wire-corpus-$version.crate" "$out/"
