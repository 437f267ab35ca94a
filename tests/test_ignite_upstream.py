"""tools/ignite_upstream.py: unpacks an archive only when its SHA-256 is listed, says how to get sources when none."""

import hashlib
import json
import os
import subprocess
import tarfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TOOL = REPO / "tools" / "ignite_upstream.py"
PY = "/usr/bin/python3"


def run(tmp_path, *args, env=None):
    e = {k: v for k, v in os.environ.items() if k not in ("IGNITE3_SRC", "IGNITE_UPSTREAM_DIR", "IGNITE_REF")}
    e.update(env or {})
    return subprocess.run([PY, str(TOOL), *args, "--dest", str(tmp_path / "dest")], capture_output=True, text=True,
                          env=e)


def make_archive(tmp_path, name="ignite-3-3.1.0"):
    src = tmp_path / "src" / name / "modules"
    src.mkdir(parents=True)
    (src / "marker.txt").write_text("upstream\n")
    archive = tmp_path / "archives" / f"{name}.tar.gz"
    archive.parent.mkdir()
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(tmp_path / "src" / name, arcname=name)
    return archive


def sources(tmp_path, archive, sha):
    listing = tmp_path / "sources.json"
    listing.write_text(json.dumps({"sources": {"ignite-3.1.0": {
        "file": archive.name, "repository": "apache/ignite-3", "ref": "3.1.0", "commit": "0" * 40, "sha256": sha}}}))
    return str(listing)


def test_unpacks_a_listed_archive_once(tmp_path):
    archive = make_archive(tmp_path)
    listing = sources(tmp_path, archive, hashlib.sha256(archive.read_bytes()).hexdigest())
    env = {"IGNITE_UPSTREAM_DIR": str(archive.parent)}
    first = run(tmp_path, "ignite", "--ref", "3.1.0", "--sources", listing, env=env)
    assert first.returncode == 0, first.stderr
    tree = Path(first.stdout.strip())
    assert (tree / "modules" / "marker.txt").read_text() == "upstream\n"
    (tree / "modules" / "marker.txt").write_text("kept\n")     # a second call reuses the checked copy
    assert run(tmp_path, "ignite", "--sources", listing, env=env).stdout.strip() == str(tree)
    assert (tree / "modules" / "marker.txt").read_text() == "kept\n"


def test_refuses_an_archive_whose_sha256_is_not_listed(tmp_path):
    archive = make_archive(tmp_path)
    listing = sources(tmp_path, archive, "0" * 64)
    r = run(tmp_path, "ignite", "--sources", listing, env={"IGNITE_UPSTREAM_DIR": str(archive.parent)})
    assert r.returncode == 2 and "SHA-256" in r.stderr and "not unpacked" in r.stderr
    assert not (tmp_path / "dest" / "ignite-3-3.1.0").exists()


def test_no_source_says_how_to_point_at_a_checkout(tmp_path):
    r = run(tmp_path, "ignite", "--ref", "main", env={"IGNITE_UPSTREAM_DIR": str(tmp_path / "none")})
    assert r.returncode == 3
    assert "IGNITE3_SRC" in r.stderr and "apache/ignite-3 at main" in r.stderr


def test_ignite3_src_is_used_as_given_and_checked(tmp_path):
    checkout = tmp_path / "checkout"
    (checkout / "modules").mkdir(parents=True)
    r = run(tmp_path, "ignite", env={"IGNITE3_SRC": str(checkout)})
    assert r.returncode == 0 and r.stdout.strip() == str(checkout.resolve())
    bad = run(tmp_path, "ignite", env={"IGNITE3_SRC": str(tmp_path)})
    assert bad.returncode == 2 and "no modules/ folder" in bad.stderr
