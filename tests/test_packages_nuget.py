"""The NuGet package (packages/nuget): built from the release with `dotnet pack`, put in a local feed folder and
restored from there by a scratch xunit project (the test framework packages from /opt/nuget/packages where the
machine has them, else from NuGet), whose `dotnet test` checks the corpus against numbers computed here."""
import os
import shutil
import zipfile
from pathlib import Path

import pytest

from package_consumer import CONSUMERS, build, expectations, need, run

# This machine kind's offline folder of test-framework packages (Microsoft.NET.Test.Sdk, xunit).
OFFLINE_PACKAGES = Path("/opt/nuget/packages")
# No build servers left running after the test (MSBuild nodes, the compiler server, the MSBuild server).
DOTNET_ENV = {"DOTNET_CLI_TELEMETRY_OPTOUT": "1", "DOTNET_NOLOGO": "1", "DOTNET_SKIP_FIRST_TIME_EXPERIENCE": "1",
              "MSBUILDDISABLENODEREUSE": "1", "UseSharedCompilation": "false", "DOTNET_CLI_USE_MSBUILD_SERVER": "0"}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    need("dotnet", "the .NET SDK (8 or newer)")
    tmp = tmp_path_factory.mktemp("nuget-package")
    stage, out = build("nuget", tmp)
    version = (stage / "VERSION").read_text().strip()
    return tmp, stage, out / f"IgniteWireCorpus.{version}.nupkg", version


def test_package_holds_the_release_corpus(built):
    _, stage, nupkg, version = built
    with zipfile.ZipFile(nupkg) as z:
        nuspec = z.read("IgniteWireCorpus.nuspec").decode()
        assert f"<version>{version}</version>" in nuspec
        assert f"corpus {version}" in z.read("README.md").decode()
        dll = z.read("lib/net8.0/IgniteWireCorpus.dll")
    # Embedded resources are stored whole in the assembly: each corpus file's bytes are in it.
    for f in (stage / "vectors").iterdir():
        assert f.read_bytes() in dll, f.name


def test_consumer_project(built):
    tmp, stage, nupkg, version = built
    feed, consumer = tmp / "feed", tmp / "consumer"
    feed.mkdir()
    shutil.copy(nupkg, feed)
    shutil.copytree(CONSUMERS / "nuget", consumer)
    fallback = OFFLINE_PACKAGES if OFFLINE_PACKAGES.is_dir() else "https://api.nuget.org/v3/index.json"
    (consumer / "nuget.config").write_text(
        '<?xml version="1.0" encoding="utf-8"?>\n<configuration>\n  <packageSources>\n    <clear />\n'
        f'    <add key="built" value="{feed}" />\n    <add key="test-frameworks" value="{fallback}" />\n'
        '  </packageSources>\n</configuration>\n')
    # A package cache of its own: the user's would hand back an earlier build of the same version.
    env = dict(os.environ, **DOTNET_ENV, NUGET_PACKAGES=str(tmp / "nuget-packages"),
               CORPUS_EXPECTED=str(expectations(stage, tmp)))
    done = run(["dotnet", "test", str(consumer / "Consumer.csproj"), f"-p:CorpusPackageVersion={version}",
                "--nologo", "-v", "quiet"], env=env)
    assert "Passed!" in done.stdout and "Passed:     4" in done.stdout, done.stdout
