"""make release: dist/ignite-wire-corpus-<corpus_version>.tar.gz and dist/SHA256SUMS (spec.md section 8.3).

Refuses when vectors/ is not what the generator makes, when vectors/manifest.json does not match the files, or
when CHANGELOG.md has no entry for the registry's corpus_version (or one that breaks the versioning policy).
The archive is byte-for-byte reproducible: sorted entries, fixed times, owners and modes, gzip without a name
or time.
"""
import argparse
import gzip
import hashlib
import io
import json
import os
import re
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from harness.api import ManifestError, check_manifest  # noqa: E402

# What a client repository needs to run ci/gate.sh: the corpus, the contracts, the harness, the summary writer.
CONTENTS = ["vectors", "schema", "harness", "dashboard", "ci", "docs", "spec.md", "runners/PROTOCOL.md",
            "CHANGELOG.md", "tools/bench_hostile.py"]
HEADING = re.compile(r"^## (\d+)\.(\d+)\.(\d+)(?: \(spec (\d+\.\d+\.\d+)\))?[ \t]*$", re.M)
BUMP_NEEDED = {"Changed": "major", "Removed": "major", "Added": "minor", "Corrected": "minor", "Fixed": "patch"}   # Corrected: "### Corrected from real Ignite" (spec.md 8.2)
BUMPS = ["patch", "minor", "major"]


class ReleaseError(Exception):
    pass


def changelog_problems(text, corpus_version, spec_version):
    """What is wrong with CHANGELOG.md for releasing corpus_version: [] when nothing."""
    headings = list(HEADING.finditer(text))
    versions = [tuple(int(g) for g in m.groups()[:3]) for m in headings]
    wanted = tuple(int(x) for x in corpus_version.split("."))
    if wanted not in versions:
        return [f"CHANGELOG.md has no entry '## {corpus_version} (spec {spec_version})' for the corpus_version "
                f"of schema/registry.json"]
    problems = []
    if versions != sorted(versions, reverse=True) or len(set(versions)) != len(versions):
        problems.append("CHANGELOG.md: entries must be newest first, one per version")
    current = headings[versions.index(wanted)]
    if current.group(4) != spec_version:
        problems.append(f"CHANGELOG.md: the {corpus_version} heading must name the registry's spec version: "
                        f"'## {corpus_version} (spec {spec_version})'")
    for i, m in enumerate(headings):
        body = text[m.end():headings[i + 1].start() if i + 1 < len(headings) else len(text)]
        sections = re.findall(r"^### (\w+)", body, re.M)
        unknown = sorted(set(sections) - set(BUMP_NEEDED))
        if unknown or not sections:
            problems.append(f"CHANGELOG.md {'.'.join(map(str, versions[i]))}: sections must be among "
                            f"{', '.join(BUMP_NEEDED)} (found {', '.join(sections) or 'none'})")
            continue
        if i + 1 == len(headings):
            continue           # the first release: no bump to judge
        new, old = versions[i], versions[i + 1]
        made = "major" if new[0] > old[0] else "minor" if new[1] > old[1] else "patch"
        needed = max((BUMP_NEEDED[s] for s in sections), key=BUMPS.index)
        if BUMPS.index(made) < BUMPS.index(needed):
            problems.append(f"CHANGELOG.md {'.'.join(map(str, new))}: its sections ({', '.join(sections)}) need a "
                            f"{needed} bump over {'.'.join(map(str, old))}, the version makes a {made} bump "
                            f"(spec.md section 8.2)")
    return problems


def files_to_ship(root):
    out = []
    for item in CONTENTS:
        path = root / item
        if path.is_file():
            out.append(path)
        elif path.is_dir():
            out += [p for p in path.rglob("*") if p.is_file() and "__pycache__" not in p.parts
                    and not p.name.startswith(".") and p.suffix != ".pyc"]
        elif item != "dashboard":
            raise ReleaseError(f"{item}: missing from the repository")
    return sorted(out, key=lambda p: p.relative_to(root).as_posix())


def build_archive(root, prefix, mtime):
    raw = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=9) as gz:
        with tarfile.open(fileobj=gz, mode="w", format=tarfile.USTAR_FORMAT) as tar:
            for path in files_to_ship(root):
                data = path.read_bytes()
                info = tarfile.TarInfo(f"{prefix}/{path.relative_to(root).as_posix()}")
                info.size, info.mtime, info.uid, info.gid, info.uname, info.gname = len(data), mtime, 0, 0, "", ""
                info.mode = 0o755 if os.access(path, os.X_OK) else 0o644
                tar.addfile(info, io.BytesIO(data))
    return raw.getvalue()


def release(root, out_dir, check_drift=True):
    registry = json.loads((root / "schema" / "registry.json").read_text(encoding="utf-8"))
    version, spec_version = registry["corpus_version"], registry["spec_version"]
    problems = changelog_problems((root / "CHANGELOG.md").read_text(encoding="utf-8"), version, spec_version)
    if problems:
        raise ReleaseError("\n".join(problems))
    try:
        check_manifest(root / "vectors", require=True)
    except ManifestError as e:
        raise ReleaseError(f"{e}\nrun: make vectors") from None
    if check_drift:
        from generator.__main__ import render
        fresh = render()
        stale = sorted(n for n, text in fresh.items()
                       if not (root / "vectors" / n).is_file() or (root / "vectors" / n).read_text(encoding="utf-8") != text)
        if stale:
            raise ReleaseError(f"vectors/ differs from a fresh regeneration in {stale}: run make vectors")
    name = f"ignite-wire-corpus-{version}"
    data = build_archive(root, name, int(os.environ.get("SOURCE_DATE_EPOCH", "0")))
    out_dir.mkdir(parents=True, exist_ok=True)
    archive = out_dir / f"{name}.tar.gz"
    archive.write_bytes(data)
    digest = hashlib.sha256(data).hexdigest()
    sums_path = out_dir / "SHA256SUMS"
    sums = {}
    if sums_path.exists():
        sums = {line.split()[1]: line for line in sums_path.read_text().splitlines() if len(line.split()) == 2}
    sums[archive.name] = f"{digest}  {archive.name}"
    sums_path.write_text("".join(f"{sums[k]}\n" for k in sorted(sums)))
    return archive, digest


def main():
    p = argparse.ArgumentParser(prog="tools/release.py", description=__doc__.splitlines()[0])
    p.add_argument("--out", default=str(ROOT / "dist"), help="output directory (default dist/)")
    p.add_argument("--no-drift-check", action="store_true", help="skip regenerating the corpus to compare")
    args = p.parse_args()
    try:
        archive, digest = release(ROOT, Path(args.out), not args.no_drift_check)
    except ReleaseError as e:
        print(f"release: refused: {e}", file=sys.stderr)
        return 1
    print(f"{archive}\nsha256 {digest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
