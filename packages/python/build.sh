#!/usr/bin/env bash
# Python: a wheel and an sdist of ignite-wire-corpus (the corpus as package data, the loader module), built offline
# with Debian's python3-build against the system setuptools/wheel (--no-isolation: nothing is fetched).
# Usage: packages/python/build.sh <stage-dir> <out-dir>   (packages/build.py runs it; see packages/README.md)
set -euo pipefail
stage=$(cd "$1" && pwd) out=$(cd "$2" && pwd) here=$(cd "$(dirname "$0")" && pwd)
PY=${PY:-/usr/bin/python3}
if ! "$PY" -c 'import build, setuptools, wheel' 2>/dev/null; then
  echo "packages/python: needs Debian's python3-build, python3-setuptools and python3-wheel for $PY:" \
       "tools/need-deb python3-build python3-setuptools python3-wheel (make setup-all installs them)" >&2
  exit 2
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$here/pyproject.toml" "$here/README.md" "$here/src" "$work/"
find "$work" -name __pycache__ -prune -exec rm -rf {} +
cp "$stage/VERSION" "$work/src/ignite_wire_corpus/VERSION"
cp -r "$stage/vectors" "$work/src/ignite_wire_corpus/vectors"
# Reproducible: zip entry times come from SOURCE_DATE_EPOCH (zip cannot hold times before 1980), the sdist's tar
# entries are rewritten with that time (normalize_sdist.py).
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-315532800}
[ "$SOURCE_DATE_EPOCH" -ge 315532800 ] || SOURCE_DATE_EPOCH=315532800
(cd "$work" && "$PY" -m build --no-isolation --sdist --wheel --outdir "$out" . >"$work/build.log" 2>&1) \
  || { cat "$work/build.log" >&2; echo "packages/python: python -m build failed (log above)" >&2; exit 1; }
"$PY" "$here/normalize_sdist.py" "$out"/*.tar.gz
ls "$out"/*.whl >/dev/null
