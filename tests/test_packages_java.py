"""The Java package (packages/java): the jar built by make packages goes on a scratch consumer's classpath (with
Debian's jackson-databind, the dependency its pom declares) and a plain-Java consumer test there loads the corpus,
counts it against the manifest, decodes ten vectors, reads the shared skip file as the harness does and gets the
tamper refusal."""
import shutil
import subprocess
import zipfile
from xml.etree import ElementTree

import pytest

from package_fixtures import packages_helper

CONSUMER = packages_helper.REPO / "packages" / "java" / "consumer" / "ConsumerTest.java"
SHARE = "/usr/share/java"
JACKSON = [f"{SHARE}/jackson-databind.jar", f"{SHARE}/jackson-core.jar", f"{SHARE}/jackson-annotations.jar"]
POM = "{http://maven.apache.org/POM/4.0.0}"


JDK = "a JDK 17+ (Debian: tools/need-deb openjdk-17-jdk-headless)"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    stage, out = packages_helper.built(tmp_path_factory, "java", ["javac", "java"], JDK)
    name = f"ignite-wire-corpus-{(stage / 'VERSION').read_text().strip()}"
    assert sorted(p.name for p in out.iterdir()) == [f"{name}-sources.jar", f"{name}.jar", f"{name}.pom"]
    return stage, out, name


def test_the_jar_carries_the_stage_byte_for_byte(built):
    stage, out, name = built
    prefix = "ignite/conformance/corpus/vectors/"
    with zipfile.ZipFile(out / f"{name}.jar") as z:
        packed = {n[len(prefix):]: z.read(n) for n in z.namelist() if n.startswith(prefix) and n != prefix}
    assert packed == {p.name: p.read_bytes() for p in (stage / "vectors").iterdir()}


def test_the_pom_names_the_version_and_the_jackson_the_loader_was_compiled_against(built):
    stage, out, name = built
    pom = ElementTree.parse(out / f"{name}.pom").getroot()
    assert pom.findtext(f"{POM}artifactId") == "ignite-wire-corpus"
    assert pom.findtext(f"{POM}version") == (stage / "VERSION").read_text().strip()
    [dep] = pom.findall(f"{POM}dependencies/{POM}dependency")
    with zipfile.ZipFile(JACKSON[0]) as z:
        props = z.read("META-INF/maven/com.fasterxml.jackson.core/jackson-databind/pom.properties").decode()
    assert (dep.findtext(f"{POM}groupId"), dep.findtext(f"{POM}artifactId"), f"version={dep.findtext(f'{POM}version')}") \
        == ("com.fasterxml.jackson.core", "jackson-databind", next(l for l in props.splitlines() if l.startswith("version=")))


def test_a_consumer_with_the_jar_on_its_classpath_passes(built, tmp_path):
    stage, out, name = built
    packages_helper.expectations(stage, tmp_path)
    project = tmp_path / "consumer"
    (project / "classes").mkdir(parents=True)
    shutil.copy(CONSUMER, project)
    classpath = ":".join([str(out / f"{name}.jar")] + JACKSON)
    subprocess.run([packages_helper.tool("javac", JDK), "--release", "17", "-encoding", "UTF-8", "-cp", classpath, "-d", "classes",
                    "ConsumerTest.java"], cwd=project, check=True)
    r = subprocess.run([packages_helper.tool("java", JDK), "-cp", f"classes:{classpath}", "ConsumerTest"], cwd=project, capture_output=True,
                       text=True, env={"IWC_EXPECTED": str(tmp_path / "expected.json"), "PATH": "/usr/bin:/bin"})
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.count("\nok ") + r.stdout.startswith("ok ") == 9, r.stdout
