"""make packages: the corpus packages of every ecosystem, built from the release tarball the gate uses.

Extracts dist/ignite-wire-corpus-<v>.tar.gz (checked against dist/SHA256SUMS) into a stage directory:
    <stage>/vectors/         manifest.json and every corpus file, byte-identical to the release
    <stage>/VERSION          the corpus version (every package's version)
    <stage>/RELEASE_SHA256   the tarball's SHA-256
then runs packages/<eco>/build.sh <stage> <out>/<eco> for every ecosystem (sorted; --only ECO for one). A
build.sh works offline and writes only into its out directory (and temporary directories).
"""
import argparse
import hashlib
import json
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from harness import manifest  # noqa: E402


class BuildError(Exception):
    pass


def ecosystems():
    return sorted(p.parent.name for p in HERE.glob("*/build.sh"))


def default_release():
    version = json.loads((ROOT / "schema" / "registry.json").read_text(encoding="utf-8"))["corpus_version"]
    return ROOT / "dist" / f"ignite-wire-corpus-{version}.tar.gz"


def release_digest(tarball):
    """The tarball's SHA-256, refused when a SHA256SUMS beside it names another."""
    if not tarball.is_file():
        raise BuildError(f"{tarball}: no such release tarball (make release writes it)")
    digest = hashlib.sha256(tarball.read_bytes()).hexdigest()
    sums = tarball.parent / "SHA256SUMS"
    if sums.is_file():
        listed = {name: d for d, name in (line.split() for line in sums.read_text().splitlines() if line.strip())}
        if tarball.name in listed and listed[tarball.name] != digest:
            raise BuildError(f"{tarball}: sha256 {digest}, {sums} says {listed[tarball.name]}")
    return digest


def make_stage(tarball, stage):
    """Extracts the release's vectors/ into stage/vectors and writes VERSION and RELEASE_SHA256."""
    digest = release_digest(tarball)
    if stage.exists():
        shutil.rmtree(stage)
    vectors = stage / "vectors"
    vectors.mkdir(parents=True)
    with tarfile.open(tarball, "r:gz") as tar:
        members = [m for m in tar.getmembers() if m.isfile() and m.name.split("/")[1:2] == ["vectors"]]
        for m in members:
            parts = m.name.split("/")[2:]
            if len(parts) != 1:
                raise BuildError(f"{tarball}: unexpected entry {m.name} (vectors/ holds files only)")
            (vectors / parts[0]).write_bytes(tar.extractfile(m).read())
    if not members:
        raise BuildError(f"{tarball}: no <name>/vectors/ files in it")
    try:
        manifest.check(vectors, require=True)
    except manifest.ManifestError as e:
        raise BuildError(f"{tarball}: its corpus does not match its manifest: {e}") from None
    version = json.loads((vectors / "manifest.json").read_text(encoding="utf-8"))["corpus_version"]
    (stage / "VERSION").write_text(version + "\n", encoding="ascii")
    (stage / "RELEASE_SHA256").write_text(digest + "\n", encoding="ascii")
    return stage


def build_one(eco, stage, out, packages=HERE):
    """Runs packages/<eco>/build.sh into a fresh out directory; returns the files it wrote."""
    script = packages / eco / "build.sh"
    if not script.is_file():
        raise BuildError(f"no {script} (have: {', '.join(ecosystems())})")
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    rc = subprocess.call(["bash", str(script), str(stage.resolve()), str(out.resolve())], cwd=ROOT)
    if rc != 0:
        raise BuildError(f"{script} failed (exit {rc}); its output is above")
    files = sorted(p for p in out.rglob("*") if p.is_file())
    if not files:
        raise BuildError(f"{script} exited 0 but wrote nothing into {out}")
    return files


def main():
    p = argparse.ArgumentParser(prog="packages/build.py", description=__doc__.splitlines()[0])
    p.add_argument("--out", default=str(ROOT / "dist" / "packages"), help="output directory (default dist/packages)")
    p.add_argument("--release", help="the release tarball (default dist/ignite-wire-corpus-<version>.tar.gz)")
    p.add_argument("--stage", help="stage directory (default <out>/stage)")
    p.add_argument("--only", action="append", choices=ecosystems(), help="build this ecosystem only (repeatable)")
    args = p.parse_args()
    out = Path(args.out)
    try:
        stage = make_stage(Path(args.release) if args.release else default_release(),
                           Path(args.stage) if args.stage else out / "stage")
        for eco in args.only or ecosystems():
            print(f"== {eco}", flush=True)
            build_one(eco, stage, out / eco)
            for f in sorted((out / eco).iterdir()):     # a directory artifact (the Go module) is one line
                what = (f"sha256 {hashlib.sha256(f.read_bytes()).hexdigest()}" if f.is_file()
                        else f"directory, {sum(1 for x in f.rglob('*') if x.is_file())} files")
                print(f"   {f}  {what}")
    except BuildError as e:
        print(f"packages: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
