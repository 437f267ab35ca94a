#!/bin/sh
# packages/go/build.sh STAGE OUT: the Go module ignite-conformance.example/wirecorpus as a module directory,
# OUT/wirecorpus, with STAGE/vectors embedded; compiled and vetted offline (GOPROXY=off) before it is kept.
# A module's version is its VCS tag, not a file: the README says which tag (v<STAGE/VERSION>) it is published as.
# Publishing (a maintainer): commit OUT/wirecorpus as the root of the repository the module path names (change
# ignite-conformance.example/wirecorpus in wirecorpus/go.mod to it first), tag it v<VERSION> and push the tag;
# the Go module proxy serves it from there.
set -eu
[ $# -eq 2 ] || { echo "usage: $0 STAGE-DIR OUT-DIR" >&2; exit 2; }
stage=$1 out=$2 here=$(cd "$(dirname "$0")" && pwd)
version=$(cat "$stage/VERSION") || { echo "go package: no $stage/VERSION (made by packages/build.py)" >&2; exit 1; }
field() { sed -n "s/.*\"$1\": *\"\([^\"]*\)\".*/\1/p" "$stage/vectors/manifest.json" | head -n 1; }
spec=$(field spec_version)
[ "$(field corpus_version)" = "$version" ] || {
  echo "go package: $stage/VERSION ($version) is not manifest.json's corpus_version ($(field corpus_version))" >&2; exit 1; }
command -v go >/dev/null || { echo "go package: no go on PATH (Debian: tools/need-deb golang-go)" >&2; exit 1; }

module="$out/wirecorpus"
rm -rf "$module" && mkdir -p "$module"
cp "$here"/wirecorpus/go.mod "$here"/wirecorpus/*.go "$module"/
cp -R "$stage/vectors" "$module/vectors"
sed -e "s/@VERSION@/$version/g" -e "s/@SPEC_VERSION@/$spec/g" -e "s/@RELEASE_SHA256@/$(cat "$stage/RELEASE_SHA256")/g" \
    "$here/README.md.in" > "$module/README.md"

# The build cache in a temp dir: nothing is written outside OUT but temporary files.
cache=$(mktemp -d) && trap 'chmod -R u+w "$cache"; rm -rf "$cache"' EXIT
(cd "$module" && GOCACHE="$cache" GOFLAGS=-mod=mod GOPROXY=off GOTOOLCHAIN=local GO111MODULE=on go vet ./...) || {
  echo "go package: $module does not build (go vet above)" >&2; exit 1; }
echo "$module"
