#!/bin/sh
# packages/go/build.sh STAGE OUT: the Go module ignite-conformance.example/wirecorpus as a module directory,
# OUT/wirecorpus, with STAGE/vectors embedded; compiled and vetted offline (GOPROXY=off) before it is kept.
# A module's version is its VCS tag, not a file: the README says which tag (v<STAGE/VERSION>) it is published as.
# Publishing (a maintainer): commit OUT/wirecorpus as the root of the repository the module path names (change
# ignite-conformance.example/wirecorpus in wirecorpus/go.mod to it first), tag it v<VERSION> and push the tag;
# the Go module proxy serves it from there.
set -eu
. "$(dirname "$0")/../build-common.sh"
command -v go >/dev/null || { echo "go package: no go on PATH (Debian: tools/need-deb golang-go)" >&2; exit 1; }

module="$out/wirecorpus"
rm -rf "$module" && mkdir -p "$module"
cp "$here"/wirecorpus/go.mod "$here"/wirecorpus/*.go "$module"/
cp -R "$stage/vectors" "$module/vectors"
fill "$here/README.md.in" > "$module/README.md"

# The build cache in a temp dir: nothing is written outside OUT but temporary files.
cache=$(mktemp -d) && trap 'chmod -R u+w "$cache"; rm -rf "$cache"' EXIT
(cd "$module" && GOCACHE="$cache" GOFLAGS=-mod=mod GOPROXY=off GOTOOLCHAIN=local GO111MODULE=on go vet ./...) || {
  echo "go package: $module does not build (go vet above)" >&2; exit 1; }
