"""Proof that runners/ignite-java runs the Java client's own code: plant one change in a scratch copy of the
upstream sources, rebuild the adapter on it and check that exactly the verdicts that change touches flip.

Three builds of apache/ignite-3 3.1.0's client-common and binary-tuple (about 10 s each): the unmodified copy
(control), ClientMsgPackType.UUID 3 -> 4 (the UUID ext code the packer writes and the unpacker expects), and
BinaryTupleCommon.VARLEN_EMPTY_BYTE 0x80 -> 0x81 (the empty-string marker the builder writes and the parser
strips). Skipped when no upstream source is available (set IGNITE3_SRC to an apache/ignite-3 checkout, or put
../shared/upstream/ignite-3-3.1.0.tar.gz beside the repository).
"""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RUNNER = ROOT / "runners" / "ignite-java"
REF = "3.1.0"
MODULES = ["client-common", "binary-tuple", "core", "api", "error-code-annotation-processor", "error-code-api"]
UUID_CODE = ("modules/client-common/src/main/java/org/apache/ignite/internal/client/proto/ClientMsgPackType.java",
             "public static final byte UUID = 3;", "public static final byte UUID = 4;")
EMPTY_BYTE = ("modules/binary-tuple/src/main/java/org/apache/ignite/internal/binarytuple/BinaryTupleCommon.java",
              "public static final byte VARLEN_EMPTY_BYTE = (byte) 0x80;",
              "public static final byte VARLEN_EMPTY_BYTE = (byte) 0x81;")
# A msgpack UUID (era 3.0), an empty STRING element, a non-empty STRING, an INT32 element, a UUID ext of bad length.
CASES = ["ignite.3.0.uuid.java-test", "bt.string.tuple.empty", "bt.string.tuple.abc", "bt.int.tuple.int32.0",
         "ext-length.3.0.uuid.len15.ext8"]


def _source():
    env = dict(os.environ)
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "ignite_upstream.py"), "ignite", "--ref", REF],
                       capture_output=True, text=True, env=env)
    if r.returncode == 3:
        pytest.skip("no apache/ignite-3 source for the planted-change test: set IGNITE3_SRC to a checkout of "
                    f"apache/ignite-3 at {REF} (or provide ../shared/upstream/ignite-3-{REF}.tar.gz)")
    assert r.returncode == 0, r.stderr
    return Path(r.stdout.strip())


def _need_tools():
    if not shutil.which("javac") or not Path("/usr/share/java/netty-buffer.jar").exists():
        pytest.skip("javac or Debian's jars missing: make -C runners/ignite-java setup")


def _build(tmp, name, src, plant=None):
    tree = tmp / name / "ignite-3"
    for m in MODULES:
        d = src / "modules" / m / "src" / "main" / "java"
        if d.is_dir():
            shutil.copytree(d, tree / "modules" / m / "src" / "main" / "java")
    if plant:
        path, old, new = plant
        f = tree / path
        text = f.read_text(encoding="utf-8")
        assert text.count(old) == 1, f"{old!r} not once in {path}"
        f.write_text(text.replace(old, new), encoding="utf-8")
    out = tmp / name / "classes-build"
    env = dict(os.environ, IGNITE3_SRC=str(tree))
    r = subprocess.run(["make", "-s", "-C", str(RUNNER), "build", f"IGNITE_REF={REF}", f"OUTDIR={out}"],
                       capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    return out


def _verdicts(tmp, name, build):
    empty = tmp / "empty-expected-failures.txt"
    empty.write_text("")
    cmd = [sys.executable, "-m", "harness", "verify", "--runners", "ignite-java", "--no-matrix",
           "--expected-failures", f"ignite-java={empty}", "--out", str(tmp / name / "out")]
    for c in CASES:
        cmd += ["--case", c]
    env = dict(os.environ, IGNITE_REF=REF, IGNITE_JAVA_BUILD=str(build))
    subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, env=env)
    report = json.loads((tmp / name / "out" / "report.json").read_text())
    return {(v["vector"], v["op"]): v["verdict"] for v in report["verdicts"] if v["runner"] == "ignite-java"}


@pytest.fixture(scope="module")
def builds(tmp_path_factory):
    _need_tools()
    src = _source()
    tmp = tmp_path_factory.mktemp("ignite-java-planted")
    return {
        "control": _verdicts(tmp, "control", _build(tmp, "control", src)),
        "uuid": _verdicts(tmp, "uuid", _build(tmp, "uuid", src, UUID_CODE)),
        "empty": _verdicts(tmp, "empty", _build(tmp, "empty", src, EMPTY_BYTE)),
    }


def _flipped(control, planted):
    assert control.keys() == planted.keys()
    return {k: (control[k], planted[k]) for k in control if control[k] != planted[k]}


def test_control_copy_passes_the_selected_vectors(builds):
    control = builds["control"]
    assert control, "no verdicts"
    assert {k for k, v in control.items() if v != "pass"} == set(), control


def test_uuid_code_plant_flips_exactly_the_uuid_verdicts(builds):
    # packUuid writes d8 04 ...; a code-3 ext is no longer the client's UUID, so the canonical bytes and the ext8,
    # ext16 and ext32 forms read as a raw ext, and unpackUuid no longer refuses a 15-byte ext 3.
    assert _flipped(builds["control"], builds["uuid"]) == {
        ("ignite.3.0.uuid.java-test", "encode"): ("pass", "fail"),
        ("ignite.3.0.uuid.java-test", "decode"): ("pass", "fail"),
        ("ignite.3.0.uuid.java-test", "decode[ext8]"): ("pass", "fail"),
        ("ignite.3.0.uuid.java-test", "decode[ext16]"): ("pass", "fail"),
        ("ignite.3.0.uuid.java-test", "decode[ext32]"): ("pass", "fail"),
        ("ext-length.3.0.uuid.len15.ext8", "reject"): ("pass", "fail"),
    }


def test_empty_marker_plant_flips_exactly_the_empty_string_verdicts(builds):
    # The builder writes "" as 81; the parser strips 81 instead of 80, so the canonical 80 reads as a 1-byte string
    # and "abc" with the optional 80 prefix (variant prefix-80) keeps the 80. INT32, UUID and plain "abc": unchanged.
    flipped = _flipped(builds["control"], builds["empty"])
    assert {k: v for k, v in flipped.items() if k[0] != "bt.string.tuple.empty"} == {
        ("bt.string.tuple.abc", "decode[prefix-80]"): ("pass", "fail"),
    }
    empty = {k: v for k, v in flipped.items() if k[0] == "bt.string.tuple.empty"}
    assert empty[("bt.string.tuple.empty", "encode")] == ("pass", "fail")
    assert empty[("bt.string.tuple.empty", "decode")] == ("pass", "fail")
    assert all(v == ("pass", "fail") for v in empty.values()), empty
    # Every op of the empty string flips but the variants whose bytes the plant does not touch (wider offset tables
    # still hold the 80 byte, so they flip too): nothing of that vector stays passing.
    assert {k for k, v in builds["empty"].items() if k[0] == "bt.string.tuple.empty" and v == "pass"} == set()
