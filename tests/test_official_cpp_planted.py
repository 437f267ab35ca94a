"""runners/ignite-cpp runs the official C++ client's own code: the same adapter built from a copy of the upstream tree
with one planted change in the Binary Tuple builder and one in the parser turns the BOOLEAN tuple vectors' encode and
decode verdicts from pass to fail, while the unchanged build passes them; a planted SIGSEGV in the parser's INT8
getter becomes the answer skipped "official client crashed: SIGSEGV in ..." (the fork per request), not a crash.

Needs the apache/ignite-3 sources (tools/ignite_upstream.py: IGNITE3_SRC or ../shared/upstream); skipped without.
The planted build lives in out/ignite-cpp-planted/ (cold: about as long as `make -C runners/ignite-cpp build`, then
only the two planted files recompile)."""

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
RUNNER = REPO / "runners" / "ignite-cpp"
PY = "/usr/bin/python3"
REF = "3.1.0"
SCRATCH = REPO / "out" / "ignite-cpp-planted"
CASES = ["bt.boolean.tuple.true", "bt.boolean.tuple.false"]
CRASH_CASE = "bt.int.tuple.int8.127"
# (file under modules/platforms/cpp/ignite, upstream text, planted text): the builder writes the other BOOLEAN byte,
# the parser reads every BOOLEAN byte the other way round.
PLANTS = [
    ("tuple/binary_tuple_builder.cpp", "void binary_tuple_builder::append_bool(bool value) {\n",
     "void binary_tuple_builder::append_bool(bool value) {\n    value = !value; // planted\n"),
    ("tuple/binary_tuple_parser.cpp", "return load_little<std::int8_t>(bytes) != 0;",
     "return load_little<std::int8_t>(bytes) == 0; // planted"),
    # INT8 127 kills the reading process.
    ("tuple/binary_tuple_parser.cpp", "#include <stdexcept>\n", "#include <stdexcept>\n#include <csignal> // planted\n"),
    ("tuple/binary_tuple_parser.cpp", "std::int8_t binary_tuple_parser::get_int8(bytes_view bytes) {\n",
     "std::int8_t binary_tuple_parser::get_int8(bytes_view bytes) {\n"
     "    if (bytes.size() == 1 && load_little<std::int8_t>(bytes) == 127) std::raise(SIGSEGV); // planted\n"),
]


def upstream(what):
    p = subprocess.run([PY, str(REPO / "tools" / "ignite_upstream.py"), what, "--ref", REF], capture_output=True,
                       text=True)
    if p.returncode == 3:
        pytest.skip("no apache/ignite-3 source: set IGNITE3_SRC to a checkout (or put ../shared/upstream beside the "
                    "repository): " + p.stderr.strip()[:300])
    assert p.returncode == 0, p.stderr
    return Path(p.stdout.strip())


def verdicts(binary, out):
    empty = out / "expected-failures.txt"
    out.mkdir(parents=True, exist_ok=True)
    empty.write_text("")
    cmd = [PY, "-m", "harness", "verify", "--runners", "ignite-cpp", "--command", f"ignite-cpp={binary}",
           "--expected-failures", f"ignite-cpp={empty}", "--no-matrix", "--out", str(out)]
    for case in CASES + [CRASH_CASE]:
        cmd += ["--case", case]
    # The verdicts asked about need no coarse class; a harness without capabilities.coarse_classes accepts this.
    env = dict(os.environ, IGNITE_CPP_COARSE="0", IGNITE_REF=REF)
    subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    report = json.loads((out / "report.json").read_text())
    return {(v["vector"], v["op"]): (v["verdict"], v["detail"]) for v in report["verdicts"]}


def build_planted(ignite, crypto):
    src = SCRATCH / "cpp"
    # copy2 keeps upstream's mtimes, so a second run recompiles only the two planted files.
    shutil.copytree(ignite / "modules" / "platforms" / "cpp", src, dirs_exist_ok=True)
    for rel, old, new in PLANTS:
        path = src / "ignite" / rel
        text = path.read_text()
        assert text.count(old) == 1, f"{rel}: the text to plant on is not there once"
        path.write_text(text.replace(old, new))
    build = SCRATCH / "build"
    if not (build / "CMakeCache.txt").exists():
        subprocess.run(["cmake", "-S", str(RUNNER), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
                        f"-DIGNITE_CPP_DIR={src}", "-DCRYPTO_KIND=mbedtls", f"-DCRYPTO_DIR={crypto}",
                        f"-DIGNITE_REF={REF}-planted"], check=True, capture_output=True)
    subprocess.run(["cmake", "--build", str(build), "-j2"], check=True, capture_output=True)
    return build / "ignite-runner"


def test_planted_change_flips_the_boolean_verdicts(tmp_path):
    ignite, crypto = upstream("ignite"), upstream("mbedtls")
    subprocess.run(["make", "-C", str(RUNNER), "build", f"IGNITE_REF={REF}"], check=True, capture_output=True)
    clean = verdicts(RUNNER / "build" / REF / "ignite-runner", tmp_path / "clean")
    planted = verdicts(build_planted(ignite, crypto), tmp_path / "planted")
    ops = [(c, op) for c in CASES for op in ("encode", "decode")]
    assert all(clean[k][0] == "pass" for k in ops), clean
    assert all(planted[k][0] == "fail" for k in ops), planted
    # The parser plant reads the variants (wider offset tables) wrong too.
    assert all(v[0] == "fail" for (c, op), v in planted.items() if c in CASES and op.startswith("decode")), planted
    # The crash: the unchanged client reads INT8 127; the planted one dies in the child, and the runner answers on.
    assert clean[(CRASH_CASE, "decode")][0] == "pass", clean
    verdict, detail = planted[(CRASH_CASE, "decode")]
    assert verdict == "skip" and "official client crashed: SIGSEGV in protocol::read_next_column" in detail, detail
    assert planted[(CRASH_CASE, "encode")][0] == "pass", planted
