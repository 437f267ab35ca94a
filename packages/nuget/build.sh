#!/bin/sh
# packages/nuget/build.sh STAGE OUT: OUT/IgniteWireCorpus.<VERSION>.nupkg, the corpus (STAGE/vectors) as embedded
# resources of a net8.0 assembly with its loader, made by `dotnet pack` with deterministic build settings.
# The first build restores the net8.0 reference pack from NuGet into the user's package cache; later ones are offline.
# Publishing (a maintainer, with a nuget.org API key): dotnet nuget push OUT/IgniteWireCorpus.<VERSION>.nupkg
#   --source https://api.nuget.org/v3/index.json --api-key <key>
set -eu
. "$(dirname "$0")/../build-common.sh"
command -v dotnet >/dev/null || { echo "nuget package: no dotnet on PATH (the .NET SDK 8 or newer)" >&2; exit 1; }

# Built in a temp copy of the project (obj/ and bin/ stay out of the repository).
work=$(mktemp -d) && trap 'rm -rf "$work"' EXIT
cp -R "$here/IgniteWireCorpus" "$work/project"
fill "$here/README.md.in" > "$work/README.md"
mkdir -p "$out"
# No build servers (MSBuild nodes, the compiler server, the MSBuild server) left running after the build.
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1 \
       MSBUILDDISABLENODEREUSE=1 UseSharedCompilation=false DOTNET_CLI_USE_MSBUILD_SERVER=0
dotnet pack "$work/project/IgniteWireCorpus.csproj" -c Release --nologo -v quiet -o "$work/pack" \
  -p:Version="$version" -p:VectorsDir="$stage/vectors" -p:ReadmePath="$work/README.md" || {
  echo "nuget package: dotnet pack failed (above)" >&2; exit 1; }
cp "$work/pack/IgniteWireCorpus.$version.nupkg" "$out/"
