"""What every tests/test_packages_<eco>.py shares: the release and its stage, built once per pytest session (also
across xdist workers: a file lock each), an ecosystem's artifact built once, and the expectations a consumer test
in any language checks (written as one JSON file it reads).

    stage = packages_helper.stage(tmp_path_factory)
    out = packages_helper.artifact(tmp_path_factory, "python")      # packages/python/build.sh's out dir
    expected = packages_helper.expectations(stage, tmp_path)        # tmp_path/expected.json, see below
"""
import contextlib
import fcntl
import hashlib
import importlib.util
import json
import os
import shutil
import sys
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent
TESTDATA = REPO / "packages" / "testdata"
SAMPLES = 10        # vectors whose decoded bytes a consumer test checks
TAMPERED_FILE = "int.json"
MISSING_FILE, EXTRA_FILE = "bin.json", "zz-extra.json"
# A query using every filter; expected.json's "filter" gives it with the count the stage holds.
FILTER = {"family": "bt-decimal", "era": "3.0", "format": "object", "kind": "value", "rule": "BT-OBJECT-DECIMAL"}


# A frame vector (spec.md 11) whose message kind, field names and bytes each consumer reads back.
FRAME_SAMPLE = "frame.handshake-request.minimal"


def _module(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


sys.path.insert(0, str(REPO))
release = _module("release", REPO / "tools" / "release.py")
build = _module("packages_build", REPO / "packages" / "build.py")


def _shared(tmp_path_factory):
    """A directory every xdist worker of this session sees (the session's base temp dir), created once."""
    base = tmp_path_factory.getbasetemp()
    shared = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "packages"
    shared.mkdir(exist_ok=True)
    return shared


@contextlib.contextmanager
def _locked(path):
    with open(path, "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        yield


def once(tmp_path_factory, name, make):
    """The shared directory `name`, made by make(path) once per session, also across xdist workers (a failed make
    is retried by the next caller)."""
    shared = _shared(tmp_path_factory)
    path, done = shared / name, shared / f"{name}.done"
    with _locked(shared / f"{name}.lock"):
        if not done.exists():
            if path.exists():
                shutil.rmtree(path)
            make(path)
            done.touch()
    return path


def stage(tmp_path_factory):
    """The stage of this session's release (tools/release.py without the drift check: test_release_gate checks it)."""
    def make(path):
        archive, _ = release.release(REPO, path.parent / "dist", check_drift=False)
        build.make_stage(archive, path)
    return once(tmp_path_factory, "stage", make)


def artifact(tmp_path_factory, eco):
    """packages/<eco>/build.sh's out directory for this session's stage, built on first use."""
    stage_dir = stage(tmp_path_factory)
    return once(tmp_path_factory, f"out-{eco}", lambda path: build.build_one(eco, stage_dir, path))


def _byte_hex(v):
    return v.get("canonical", v.get("hex"))


def _linked_copy(vectors, dest):
    """dest/ with a hard link to every file of vectors/: regular files to every loader, no copying. A file to
    change is unlinked first, so the stage stays as it is."""
    dest.mkdir()
    for f in vectors.iterdir():
        os.link(f, dest / f.name)
    return dest


def expectations(stage_dir, where):
    """Writes where/expected.json, where/tampered/ (the corpus with one changed file) and where/partial/ (one file
    missing, one extra; both hold hard links to the stage's unchanged files); returns the
    dict. Keys: version, spec_version, manifest_sha256, total; files {path: vectors} (the manifest's counts),
    families {family: vectors} and kinds {kind: vectors} (counted in the files); samples [{id, kind, hex, variants
    {label: hex}}] (hex: a value's canonical bytes, a decode-reject's bytes); filter {family, era, format, kind, rule,
    count} (a query with every filter and its count); skips (skips.txt's path), skip_cases
    (skips-expected.json's cases), skip_lines [{text, valid}] (its lines: valid
    or refused by the harness, as the second line of a file); tampered {dir, file, expected, actual} (the changed file's sha256s); partial
    {dir, missing, extra} (file names)."""
    vectors = stage_dir / "vectors"
    manifest_bytes = (vectors / "manifest.json").read_bytes()
    manifest = json.loads(manifest_bytes)
    kinds, families, with_bytes, filtered, frame = Counter(), Counter(), [], 0, None
    for f in manifest["files"]:
        data = json.loads((vectors / f["path"]).read_bytes())
        families[data["family"]] += len(data["vectors"])
        for v in data["vectors"]:
            kinds[v["kind"]] += 1
            facts = {"family": data["family"], "era": v["era"], "format": v.get("format", "msgpack"),
                     "kind": v["kind"]}
            filtered += all(facts[k] == FILTER[k] for k in facts) and FILTER["rule"] in v["rules"]
            if _byte_hex(v):
                with_bytes.append(v)
            if v["id"] == FRAME_SAMPLE:
                frame = {"id": v["id"], "frame": v["frame"], "fields": sorted(v["fields"]), "hex": v["canonical"]}
    step = len(with_bytes) // SAMPLES
    samples = [{"id": v["id"], "kind": v["kind"], "hex": _byte_hex(v),
                "variants": {x["label"]: x["hex"] for x in v.get("variants", ())}}
               for v in with_bytes[step // 2::step][:SAMPLES]]
    tampered, partial = _linked_copy(vectors, where / "tampered"), _linked_copy(vectors, where / "partial")
    (partial / MISSING_FILE).unlink()
    (partial / EXTRA_FILE).write_text('{"vectors": []}\n')
    target = tampered / TAMPERED_FILE
    data = target.read_bytes()
    target.unlink()
    digit = data.index(b'"', data.index(b":", data.index(b'"canonical"')) + 1) + 1    # a canonical's first digit
    changed = data[:digit] + (b"1" if data[digit:digit + 1] == b"0" else b"0") + data[digit + 1:]   # same size
    target.write_bytes(changed)
    skips_expected = json.loads((TESTDATA / "skips-expected.json").read_text(encoding="utf-8"))
    expected = {
        "version": manifest["corpus_version"], "spec_version": manifest["spec_version"],
        "manifest_sha256": hashlib.sha256(manifest_bytes).hexdigest(),
        "total": sum(f["vectors"] for f in manifest["files"]),
        "files": {f["path"]: f["vectors"] for f in manifest["files"]},
        "families": dict(sorted(families.items())), "kinds": dict(sorted(kinds.items())),
        "filter": dict(FILTER, count=filtered), "samples": samples, "frame": frame,
        "skips": str(TESTDATA / "skips.txt"),
        "skip_cases": skips_expected["cases"], "skip_lines": skips_expected["lines"],
        "tampered": {"dir": str(tampered), "file": TAMPERED_FILE,
                     "expected": hashlib.sha256(data).hexdigest(), "actual": hashlib.sha256(changed).hexdigest()},
        "partial": {"dir": str(partial), "missing": MISSING_FILE, "extra": EXTRA_FILE},
    }
    (where / "expected.json").write_text(json.dumps(expected, indent=1), encoding="utf-8")
    return expected


def unit_route_counts(stage_dir):
    """(passing, listed) decode ops of the int family's value vectors for the unit-route examples run with
    packages/testdata/skips.txt: listed ops are the ones the harness's matcher gives a reason (they pass, so a
    strict example fails them: the gate's xpass)."""
    from harness import expectations
    index = expectations.Index(expectations.parse(TESTDATA / "skips.txt"))
    data = json.loads((stage_dir / "vectors" / "int.json").read_bytes())
    ops = [(v, op) for v in data["vectors"] if v["kind"] == "value"
           for op in ["decode"] + [f"decode[{x['label']}]" for x in v["variants"]]]
    listed = sum(1 for v, op in ops
                 if index.hits(v["id"], op, {"family": data["family"], "era": v["era"], "format": "msgpack"}))
    return len(ops) - listed, listed


def tool(name, install):
    """The path of a program the test needs; a missing one fails the test saying what to install."""
    path = shutil.which(name)
    assert path, f"{name} is missing: install {install}"
    return path


def consumer_dir(tmp_path_factory, stage_dir, eco, setup=None):
    """eco's consumer project directory, made once per session: expected.json, tampered/ and partial/
    (expectations()) in it, then setup(path) (a venv, an npm install) when given."""
    def make(path):
        path.mkdir()
        expectations(stage_dir, path)
        if setup:
            setup(path)
    return once(tmp_path_factory, f"consumer-{eco}", make)


def built(tmp_path_factory, eco, tools, install):
    """(stage, eco's out directory), after checking that the tools eco's build and consumer need are there."""
    for name in tools:
        tool(name, install)
    return stage(tmp_path_factory), artifact(tmp_path_factory, eco)
