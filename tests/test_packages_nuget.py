"""The NuGet package (packages/nuget): the .nupkg make packages builds (dotnet pack), put in a local feed folder
and restored from there by a scratch xunit project (the test framework from /opt/nuget/packages where the machine
has it, else from NuGet), whose `dotnet test` loads the corpus, counts it against the manifest, decodes ten
vectors, reads the shared skip file as the harness does and gets the tamper refusal."""
import os
import shutil
import zipfile
from pathlib import Path

import pytest

from package_fixtures import packages_helper
from package_fixtures.consumer_run import run

CONSUMER = packages_helper.REPO / "packages" / "nuget" / "consumer"
# This machine kind's offline folder of test-framework packages (Microsoft.NET.Test.Sdk, xunit).
OFFLINE_PACKAGES = Path("/opt/nuget/packages")
# No build servers left running after the test (MSBuild nodes, the compiler server, the MSBuild server).
DOTNET_ENV = {"DOTNET_CLI_TELEMETRY_OPTOUT": "1", "DOTNET_NOLOGO": "1", "DOTNET_SKIP_FIRST_TIME_EXPERIENCE": "1",
              "MSBUILDDISABLENODEREUSE": "1", "UseSharedCompilation": "false", "DOTNET_CLI_USE_MSBUILD_SERVER": "0"}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    stage, out = packages_helper.built(tmp_path_factory, "nuget", ["dotnet"], "the .NET SDK, 8 or newer")
    version = (stage / "VERSION").read_text().strip()
    assert sorted(p.name for p in out.iterdir()) == [f"IgniteWireCorpus.{version}.nupkg"]
    return stage, out / f"IgniteWireCorpus.{version}.nupkg", version


def test_package_carries_the_stage_byte_for_byte(built):
    stage, nupkg, version = built
    with zipfile.ZipFile(nupkg) as z:
        assert f"<version>{version}</version>" in z.read("IgniteWireCorpus.nuspec").decode()
        assert f"corpus {version}" in z.read("README.md").decode()
        dll = z.read("lib/net8.0/IgniteWireCorpus.dll")
    # Embedded resources are stored whole in the assembly: every corpus file's bytes are in it.
    for f in (stage / "vectors").iterdir():
        assert f.read_bytes() in dll, f.name


def test_consumer_project(built, tmp_path):
    stage, nupkg, version = built
    packages_helper.expectations(stage, tmp_path)
    feed, consumer = tmp_path / "feed", tmp_path / "consumer"
    feed.mkdir()
    shutil.copy(nupkg, feed)
    shutil.copytree(CONSUMER, consumer)
    frameworks = OFFLINE_PACKAGES if OFFLINE_PACKAGES.is_dir() else "https://api.nuget.org/v3/index.json"
    (consumer / "nuget.config").write_text(
        '<?xml version="1.0" encoding="utf-8"?>\n<configuration>\n  <packageSources>\n    <clear />\n'
        f'    <add key="built" value="{feed}" />\n    <add key="test-frameworks" value="{frameworks}" />\n'
        '  </packageSources>\n</configuration>\n')
    # A package cache of its own: the user's would hand back an earlier build of the same version.
    env = dict(os.environ, **DOTNET_ENV, NUGET_PACKAGES=str(tmp_path / "nuget-packages"),
               CORPUS_EXPECTED=str(tmp_path / "expected.json"), CORPUS_DIR=str(stage / "vectors"))
    done = run(["dotnet", "test", "Consumer.csproj", f"-p:CorpusPackageVersion={version}", "--nologo", "-v", "quiet"],
               consumer, env)
    assert "Passed!" in done.stdout and "Passed:     6" in done.stdout, done.stdout
