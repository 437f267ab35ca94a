"""Checks a corpus directory against its manifest.json before anything runs (spec.md section 8.3).

A release's files are exactly the ones its manifest lists, byte for byte. A changed, missing or extra file
means the corpus is not the release it claims to be, so its verdicts would mean nothing: refuse it.
"""

import hashlib
import json
from pathlib import Path

from harness import schemas
from harness.corpus import checked_file

NAME = "manifest.json"


class ManifestError(Exception):
    """The corpus does not match its manifest (or has none where one is required)."""


def check(path, require=False, digests=None):
    """One line saying what was checked; ManifestError when the corpus at `path` is not what its manifest says.
    A single corpus file has no manifest. A directory without one is refused only when `require` is set.
    `digests` ({file name: (sha256, bytes or None)}, corpus_cache.digests) spares hashing the files a second time."""
    path = Path(path)
    if path.is_file():
        if require:
            raise ManifestError(f"{path}: a single corpus file has no manifest; --require-manifest needs the "
                                f"corpus directory of a release")
        return f"{path}: a single corpus file: no manifest to check"
    manifest_path = path / NAME
    if not manifest_path.is_file():
        if require:
            raise ManifestError(f"{manifest_path}: missing: the corpus cannot be told from a partial or edited "
                                f"copy (use the vectors/ directory of a release)")
        return f"{path}: no {NAME}: the files are not checked against a release manifest"
    manifest = _read(checked_file(manifest_path, path))
    listed = {entry["path"]: entry for entry in manifest["files"]}
    present = {p.name for p in path.glob("*.json") if p.name != NAME}
    problems = [f"missing: {name} (listed in {NAME})" for name in sorted(set(listed) - present)]
    problems += [f"extra: {name} (not listed in {NAME})" for name in sorted(present - set(listed))]
    for name in sorted(set(listed) & present):
        if digests and name in digests:
            digest = digests[name][0]
        else:
            digest = hashlib.sha256(checked_file(path / name, path).read_bytes()).hexdigest()
        if digest != listed[name]["sha256"]:
            problems.append(f"changed: {name} (sha256 {digest}, {NAME} says {listed[name]['sha256']})")
    if problems:
        raise ManifestError(f"{path} is not the corpus its {NAME} describes (corpus "
                            f"{manifest['corpus_version']}); refusing to run a tampered or partial corpus:\n  "
                            + "\n  ".join(problems))
    return (f"{path}: {len(listed)} files match {NAME} (corpus {manifest['corpus_version']}, "
            f"spec {manifest['spec_version']})")


def _read(manifest_path):
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ManifestError(f"{manifest_path}: not a readable JSON file: {e}") from None
    # The quick check first: jsonschema (a quarter of a second to import) only to describe an invalid manifest.
    if schemas.is_valid("manifest.schema.json", "", manifest):
        return manifest
    errors = schemas.describe_errors(schemas.validator("manifest.schema.json"), manifest) or ["invalid"]
    if errors:
        raise ManifestError(f"{manifest_path}: does not match schema/manifest.schema.json:\n  " + "\n  ".join(errors))
    return manifest
