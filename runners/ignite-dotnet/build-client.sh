#!/bin/sh
# Builds the official Apache Ignite 3 .NET client (Apache.Ignite.dll) from an apache/ignite-3 tree, unmodified but
# for the build settings README.md lists (client-overlay.targets and the one project line below).
#
#   build-client.sh SRC STAGE OUT
#     SRC    an apache/ignite-3 tree (the folder holding modules/), e.g. from ../../tools/ignite_upstream.py
#     STAGE  where the client's sources are staged and built (their obj/ and bin/)
#     OUT    where the client lands: OUT/Apache.Ignite.dll, its dependencies, and OUT/Apache.Ignite.props (what a
#            consumer project imports)
#
# The client's sources are staged, not built in place, so that the source tree (a user's checkout in IGNITE3_SRC)
# is never written to. STAGE must not lie under a folder named `build` or `internal`: upstream's exception generator
# (Apache.Ignite.Internal.Generators/ExceptionsGenerator.cs) skips every Java file whose path contains one.
set -eu
src=$(cd "$1" && pwd); stage=$(mkdir -p "$2" && cd "$2" && pwd); out=$(mkdir -p "$3" && cd "$3" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
dn=modules/platforms/dotnet
case "$stage/" in */build/*|*internal*) echo "build-client.sh: STAGE ($stage) must not contain a folder named build or internal (see above)" >&2; exit 2;; esac
[ -f "$src/$dn/Apache.Ignite/Apache.Ignite.csproj" ] || { echo "build-client.sh: no $dn/Apache.Ignite in $src" >&2; exit 2; }
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1

# Up to date: the last build was of this SRC and nothing it reads is newer (dotnet's own check costs seconds).
stamp=$out/.built-from
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$src" ] && [ -f "$out/Apache.Ignite.dll" ] && [ -z "$(find "$src/$dn/Apache.Ignite" \
    "$src/$dn/Apache.Ignite.Internal.Generators" "$src/$dn/Directory.Build.props" "$src/$dn/version.json" \
    "$here/client-overlay.targets" "$here/build-client.sh" -newer "$stamp" -print -quit)" ]; then
  exit 0
fi
rm -f "$stamp"

# Stage: the client, its source generator and the props they import; the Java exception classes the generator reads
# (../../.. of the client project). cp -p keeps times, so an unchanged tree rebuilds nothing.
mkdir -p "$stage/$dn"
(cd "$src/$dn" && tar cf - --exclude=bin --exclude=obj --exclude=Apache.Ignite/Apache.Ignite.csproj Apache.Ignite Apache.Ignite.Internal.Generators Directory.Build.props \
    version.json stylecop.json README.md Apache_Ignite_logo_128x128.png) | (cd "$stage/$dn" && tar xpf -)
(cd "$src" && find modules -name '*Exception.java' -not -path "$dn/*" | tar cf - -T -) | (cd "$stage" && tar xpf -)
# (1) The one project line changed: the Microsoft.DotNet.PackageValidation SDK (a 2021 preview that checks the public
# API against the 3.0.0 package when packing) is not on NuGet, so the project cannot even load with it.
proj=$stage/$dn/Apache.Ignite/Apache.Ignite.csproj
sed '/<Sdk Name="Microsoft.DotNet.PackageValidation"/d' "$src/$dn/Apache.Ignite/Apache.Ignite.csproj" > "$proj.new"
if cmp -s "$proj.new" "$proj"; then rm "$proj.new"; else mv "$proj.new" "$proj"; fi
# global.json (SDK 8.0.110) is not staged: this builds with the installed SDK (10), targeting net8.0 as upstream does.
version=$(sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' "$stage/$dn/version.json" | head -n 1)

cd "$stage"
dotnet build "$proj" -c Release -nologo -v ${VERBOSITY:-quiet} -clp:NoSummary \
    "-p:CustomAfterMicrosoftCommonTargets=$here/client-overlay.targets" "-p:Version=$version"

bin=$stage/$dn/Apache.Ignite/bin/Release/net8.0
for f in "$bin"/*.dll "$bin"/*.pdb; do cmp -s "$f" "$out/${f##*/}" || cp -p "$f" "$out/"; done
# What a consumer imports: a Reference to each assembly of the folder.
{
  echo '<Project>'
  echo "  <!-- Apache.Ignite $version (official .NET client) built by runners/ignite-dotnet/build-client.sh; see /work/notes/dotnet-build.md -->"
  echo '  <ItemGroup>'
  for f in "$out"/*.dll; do n=${f##*/}; echo "    <Reference Include=\"${n%.dll}\"><HintPath>\$(MSBuildThisFileDirectory)$n</HintPath></Reference>"; done
  echo '  </ItemGroup>'
  echo '</Project>'
} > "$out/Apache.Ignite.props.new"
if cmp -s "$out/Apache.Ignite.props.new" "$out/Apache.Ignite.props"; then rm "$out/Apache.Ignite.props.new"; else mv "$out/Apache.Ignite.props.new" "$out/Apache.Ignite.props"; fi
echo "$src" > "$stamp"
echo "build-client.sh: $out/Apache.Ignite.dll ($version)" >&2
