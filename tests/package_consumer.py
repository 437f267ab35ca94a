"""What tests/test_packages_{nuget,go,rust}.py share: a package built from the release into a per-module temp dir,
and the numbers its consumer test (tests/package_consumers/<eco>/) checks, computed here from the stage (bytes as
lists of ints: decoded here by Python, compared there with the loader's own hex decoding)."""
import hashlib
import json
import os
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CONSUMERS = ROOT / "tests" / "package_consumers"
TESTDATA = ROOT / "packages" / "testdata"
KINDS = ("value", "decode-reject", "encode-reject")
# Filters a consumer checks by count, one per filter field and one combination.
FILTERS = [{"family": "bt-decimal"}, {"era": "beta1"}, {"format": "table-row"}, {"rule": "MP-BIN-WIDE"},
           {"kind": "value", "family": "int"}]


def need(tool, install):
    """The path of tool, or a failed test saying what to install (never a silent skip)."""
    path = shutil.which(tool)
    if path is None:
        pytest.fail(f"{tool} is not on PATH: install {install}")
    return path


def run(cmd, **kw):
    """Runs cmd; a failure shows its output."""
    done = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if done.returncode != 0:
        pytest.fail(f"{' '.join(map(str, cmd))} exited {done.returncode}\n{done.stdout[-6000:]}\n{done.stderr[-6000:]}")
    return done


def build(eco, tmp, env=None):
    """packages/build.py --only eco into tmp: (stage dir, the ecosystem's out dir)."""
    if not (ROOT / "packages" / "build.py").exists():     # TEMPORARY until pkg-a's build.py is merged
        run([sys.executable, str(ROOT / "tools" / "release.py"), "--out", str(tmp / "dist")], cwd=ROOT)
        tarball, = (tmp / "dist").glob("ignite-wire-corpus-*.tar.gz")
        run(["tar", "xzf", str(tarball), "-C", str(tmp)])
        top, = tmp.glob("ignite-wire-corpus-*/")
        (tmp / "stage").mkdir()
        (top / "vectors").rename(tmp / "stage" / "vectors")
        (tmp / "stage" / "VERSION").write_text(json.loads((tmp / "stage/vectors/manifest.json").read_text())["corpus_version"] + "\n")
        (tmp / "stage" / "RELEASE_SHA256").write_text(_sha256(tarball.read_bytes()) + "\n")
        run([str(ROOT / "packages" / eco / "build.sh"), str(tmp / "stage"), str(tmp / "packages" / eco)], env=env)
        return tmp / "stage", tmp / "packages" / eco
    run([sys.executable, str(ROOT / "packages" / "build.py"), "--only", eco, "--out", str(tmp / "packages"),
         "--stage", str(tmp / "stage")], cwd=ROOT, env=env)
    return tmp / "stage", tmp / "packages" / eco


def expectations(stage, work):
    """work/expected.json for a consumer test: versions, counts per kind, file and filter, ten vectors in full,
    the skip-list test data, an intact copy and three tampered copies of the corpus with what their error says."""
    vectors_dir = stage / "vectors"
    manifest_bytes = (vectors_dir / "manifest.json").read_bytes()
    manifest = json.loads(manifest_bytes)
    kinds, files, everything = Counter({k: 0 for k in KINDS}), {}, []
    for f in manifest["files"]:
        doc = json.loads((vectors_dir / f["path"]).read_bytes())
        files[f["path"]] = len(doc["vectors"])
        for v in doc["vectors"]:
            kinds[v["kind"]] += 1
            everything.append(dict(v, family=doc["family"], format=v.get("format", "msgpack")))
    filters = [{"filter": flt, "count": sum(1 for v in everything if _selects(flt, v))} for flt in FILTERS]
    expected = {
        "version": manifest["corpus_version"], "spec_version": manifest["spec_version"],
        "manifest_sha256": _sha256(manifest_bytes), "total": len(everything), "kinds": dict(kinds), "files": files,
        "filters": filters, "picks": [_pick(v) for v in _ten(everything)],
        "skips_file": str(TESTDATA / "skips.txt"), "skips_expected": str(TESTDATA / "skips-expected.json"),
        "copy_dir": str(_copy(vectors_dir, work / "copy")), "tampered": _tampered(vectors_dir, work, manifest)}
    path = work / "expected.json"
    path.write_text(json.dumps(expected, indent=1))
    return path


def _selects(flt, v):
    return all(name in v["rules"] if key == "rule" else v[key] == name for key, name in flt.items())


def _ten(vectors):
    """Six value vectors (with variants where there are) and four decode-rejects, spread over the corpus."""
    values = [v for v in vectors if v["kind"] == "value" and v["variants"]]
    rejects = [v for v in vectors if v["kind"] == "decode-reject"]
    return values[::len(values) // 6][:6] + rejects[::len(rejects) // 4][:4]


def _pick(v):
    raw = v.get("canonical", v.get("hex"))
    return {"id": v["id"], "kind": v["kind"], "error": v.get("error", ""), "values": v.get("values"),
            "bytes": None if raw is None else list(bytes.fromhex(raw)),
            "variants": {x["label"]: list(bytes.fromhex(x["hex"])) for x in v.get("variants", [])}}


def _copy(vectors_dir, dest):
    """A copy made of hard links (32 MB of corpus, four times a test): a file to change is unlinked first."""
    shutil.copytree(vectors_dir, dest, copy_function=os.link)
    return dest


def _tampered(vectors_dir, work, manifest):
    """A modified file (one byte of a description), a missing one and an unlisted one: each error names the file;
    the modified one's also the manifest's sha256 and the actual one."""
    listed = {f["path"]: f for f in manifest["files"]}
    modified = _copy(vectors_dir, work / "tampered-modified")
    target = modified / "bin.json"
    data = target.read_bytes()
    at = data.index(b"bin of 0 bytes") + len("bin of ")
    target.unlink()
    target.write_bytes(data[:at] + b"9" + data[at + 1:])
    missing = _copy(vectors_dir, work / "tampered-missing")
    (missing / "nil-bool.json").unlink()
    unlisted = _copy(vectors_dir, work / "tampered-unlisted")
    (unlisted / "extra.json").write_text("{}")
    return [{"dir": str(modified), "must_contain": ["bin.json", listed["bin.json"]["sha256"],
                                                    _sha256(target.read_bytes())]},
            {"dir": str(missing), "must_contain": ["nil-bool.json"]},
            {"dir": str(unlisted), "must_contain": ["extra.json"]}]


def _sha256(data):
    return hashlib.sha256(data).hexdigest()
