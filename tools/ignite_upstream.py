#!/usr/bin/env python3
"""Where the official clients' sources are: prints the absolute path of an unpacked upstream tree.

    tools/ignite_upstream.py ignite [--ref 3.1.0]    an apache/ignite-3 tree (the directory holding modules/)
    tools/ignite_upstream.py mbedtls                  mbedtls 3.6.0 (the C++ client's bignum at 3.0.0 and 3.1.0)
    tools/ignite_upstream.py tf-psa-crypto            TF-PSA-Crypto 1.0.0 (the C++ client's bignum on main)

`ignite` uses $IGNITE3_SRC as it is when set (a checkout or unpacked archive of the user's own; --ref then only
names it). Otherwise every source comes from an archive in $IGNITE_UPSTREAM_DIR (default ../shared/upstream beside
the repository), unpacked into <repo>/.upstream/ once, and only when its SHA-256 is the one tools/upstream-sources.json
lists. Exit status 3, with how to point IGNITE3_SRC at a checkout, when there is no source; 2 on a bad archive.
The project commits none of this source: it is an input the official-client runners compile unmodified.
"""

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
LIST = REPO / "tools" / "upstream-sources.json"
REFS = ("3.0.0", "3.1.0", "main")
NO_SOURCE = 3


def fail(message, status):
    print(f"ignite_upstream: {message}", file=sys.stderr)
    sys.exit(status)


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def archive_dir():
    return Path(os.environ.get("IGNITE_UPSTREAM_DIR") or REPO.parent / "shared" / "upstream")


def unpack(entry, dest_root):
    """Unpacks entry's archive into dest_root/<its top folder> unless a copy checked against the same SHA-256 is there."""
    archive = archive_dir() / entry["file"]
    if not archive.is_file():
        return None
    stamp = dest_root / (entry["file"] + ".sha256")
    with tarfile.open(archive) as tar:
        top = tar.next().name.split("/")[0]
    tree = dest_root / top
    if tree.is_dir() and stamp.is_file() and stamp.read_text().strip() == entry["sha256"]:
        return tree
    actual = sha256(archive)
    if actual != entry["sha256"]:
        fail(f"{archive}: SHA-256 {actual}, expected {entry['sha256']} ({LIST.name}); not unpacked", 2)
    dest_root.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=".unpack-", dir=dest_root))
    try:
        # GNU tar: strips leading '/', refuses '..' members; the archive's SHA-256 was checked above.
        subprocess.run(["tar", "-xzf", str(archive), "-C", str(scratch), "--no-same-owner"], check=True)
        if tree.exists():
            shutil.rmtree(tree)
        os.replace(scratch / top, tree)   # atomic: a concurrent caller sees the whole tree or none
        stamp.write_text(entry["sha256"] + "\n")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return tree


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("source", choices=("ignite", "mbedtls", "tf-psa-crypto"))
    p.add_argument("--ref", default=os.environ.get("IGNITE_REF") or "3.1.0", choices=REFS,
                   help="the apache/ignite-3 ref (default: $IGNITE_REF or 3.1.0)")
    p.add_argument("--dest", type=Path, default=REPO / ".upstream", help="where archives are unpacked")
    p.add_argument("--sources", type=Path, default=LIST, help=f"the archive list (default tools/{LIST.name})")
    args = p.parse_args(argv)
    entries = json.loads(args.sources.read_text())["sources"]
    if args.source == "ignite" and os.environ.get("IGNITE3_SRC"):
        tree = Path(os.environ["IGNITE3_SRC"]).resolve()
        if not (tree / "modules").is_dir():
            fail(f"IGNITE3_SRC={tree}: no modules/ folder there; point it at the root of an apache/ignite-3 checkout", 2)
        print(tree)
        return 0
    key = f"ignite-{args.ref}" if args.source == "ignite" else args.source
    tree = unpack(entries[key], args.dest)
    if tree is None:
        how = (f"Point IGNITE3_SRC at a checkout of apache/ignite-3 at {args.ref}, or " if args.source == "ignite"
               else "Point ")
        fail(f"no {key} source: {archive_dir() / entries[key]['file']} is missing. {how}IGNITE_UPSTREAM_DIR at a "
             f"folder holding {entries[key]['file']} ({entries[key]['repository']} {entries[key]['ref']}, "
             f"SHA-256 in tools/{LIST.name})", NO_SOURCE)
    if any(part == "build" for part in tree.parts):
        # The .NET client's source generator skips every Java file under a folder named 'build'.
        print(f"ignite_upstream: warning: {tree} lies under a folder named 'build'; the .NET client will not build "
              f"there", file=sys.stderr)
    print(tree)
    return 0


if __name__ == "__main__":
    sys.exit(main())
