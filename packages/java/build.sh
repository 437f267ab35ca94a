#!/usr/bin/env bash
# Java: ignite-wire-corpus-<version>.jar (the loader classes, the corpus as resources under
# ignite/conformance/corpus/vectors/), its -sources.jar and its .pom, built with javac and jar against Debian's
# jackson-databind (no Maven Central here). Entries are sorted and dated SOURCE_DATE_EPOCH: reproducible with the
# same JDK (the manifest's Created-By names it).
# Usage: packages/java/build.sh <stage-dir> <out-dir>   (packages/build.py runs it; see packages/README.md)
set -euo pipefail
stage=$(cd "$1" && pwd) out=$(cd "$2" && pwd) here=$(cd "$(dirname "$0")" && pwd)
SHARE=/usr/share/java
CP=$SHARE/jackson-databind.jar:$SHARE/jackson-core.jar:$SHARE/jackson-annotations.jar
if ! command -v javac >/dev/null || ! command -v jar >/dev/null || [ ! -f $SHARE/jackson-databind.jar ]; then
  echo "packages/java: needs a JDK 17+ (javac, jar) and Debian's jackson-databind:" \
       "tools/need-deb openjdk-17-jdk-headless libjackson2-databind-java (make setup-all installs them)" >&2
  exit 2
fi
version=$(cat "$stage/VERSION")
jackson=$(unzip -p $SHARE/jackson-databind.jar META-INF/maven/com.fasterxml.jackson.core/jackson-databind/pom.properties \
          | sed -n 's/^version=//p')
[ -n "$jackson" ] || { echo "packages/java: no version in $SHARE/jackson-databind.jar's pom.properties" >&2; exit 1; }
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-315532800}
[ "$SOURCE_DATE_EPOCH" -ge 315532800 ] || SOURCE_DATE_EPOCH=315532800
date=$(date -u -d "@$((SOURCE_DATE_EPOCH + 2))" +%Y-%m-%dT%H:%M:%SZ)     # jar --date: after 1980-01-01T00:00:02Z
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/classes/ignite/conformance/corpus" "$work/sources"
javac --release 17 -Xlint:all -Werror -encoding UTF-8 -cp "$CP" -d "$work/classes" $(find "$here/src" -name '*.java' | LC_ALL=C sort)
cp -r "$stage/vectors" "$work/classes/ignite/conformance/corpus/vectors"
cp -r "$here/src/." "$work/sources/"
printf 'Automatic-Module-Name: ignite.conformance.corpus\nImplementation-Title: ignite-wire-corpus\nImplementation-Version: %s\n' \
  "$version" > "$work/MANIFEST.MF"
pack() {   # pack JAR DIR: every file of DIR, sorted, with fixed dates
  (cd "$2" && find . -type f | LC_ALL=C sort | sed 's|^\./||' > "$work/list" \
   && jar --create --date="$date" --file "$1" --manifest "$work/MANIFEST.MF" @"$work/list")
}
pack "$out/ignite-wire-corpus-$version.jar" "$work/classes"
pack "$out/ignite-wire-corpus-$version-sources.jar" "$work/sources"
sed -e "s/@VERSION@/$version/" -e "s/@JACKSON_VERSION@/$jackson/" "$here/pom.xml" > "$out/ignite-wire-corpus-$version.pom"
