#!/usr/bin/env bash
# npm: ignite-wire-corpus-<version>.tgz (the corpus files, the ES module loader and its types), made by `npm pack`
# offline. npm pack writes fixed entry times and owners, so the tarball is reproducible.
# Usage: packages/npm/build.sh <stage-dir> <out-dir>   (packages/build.py runs it; see packages/README.md)
set -euo pipefail
stage=$(cd "$1" && pwd) out=$(cd "$2" && pwd) here=$(cd "$(dirname "$0")" && pwd)
command -v npm >/dev/null || { echo "packages/npm: needs node and npm (Debian: tools/need-deb nodejs npm)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$here/package.json" "$here/index.js" "$here/index.d.ts" "$here/README.md" "$work/"
cp -r "$stage/vectors" "$work/vectors"
cd "$work"
export npm_config_cache="$work/.npm-cache" npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
npm pkg set "version=$(cat "$stage/VERSION")"
npm pack --offline --silent --pack-destination "$out" >/dev/null
ls "$out"/ignite-wire-corpus-*.tgz >/dev/null
