# Sourced by packages/{go,rust,nuget}/build.sh (sh): checks the arguments STAGE-DIR OUT-DIR and sets $stage
# (absolute), $out, $here (the calling build.sh's folder), $version (STAGE/VERSION, the package version) and $spec
# (the manifest's spec_version); `fill TEMPLATE` prints a template with @VERSION@, @SPEC_VERSION@ and
# @RELEASE_SHA256@ replaced.
[ $# -eq 2 ] || { echo "usage: $0 STAGE-DIR OUT-DIR" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
stage=$(cd "$1" && pwd) && out=$2 && version=$(cat "$stage/VERSION") || {
  echo "$0: $1 is not a stage (packages/build.py makes one: vectors/, VERSION, RELEASE_SHA256)" >&2; exit 1; }
spec=$(sed -n 's/.*"spec_version": *"\([^"]*\)".*/\1/p' "$stage/vectors/manifest.json" | head -n 1)
fill() {
  sed -e "s/@VERSION@/$version/g" -e "s/@SPEC_VERSION@/$spec/g" -e "s/@RELEASE_SHA256@/$(cat "$stage/RELEASE_SHA256")/g" "$1"
}
