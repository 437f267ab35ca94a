"""runners/ignite-java/deviations.py: every failing verdict gets exactly one cause by the client's answer, or nothing
is written; faults are never listed; the upstream line is looked up in the ref's own tree."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TOOL = ROOT / "runners" / "ignite-java" / "deviations.py"
NETTY = ("runner skipped: client threw java.lang.IndexOutOfBoundsException: readerIndex(1) + length(4) exceeds "
         "writerIndex(2) at io.netty.buffer.AbstractByteBuf.checkReadableBytes0(AbstractByteBuf.java:1442) via "
         "org.apache.ignite.internal.client.proto.ClientMessageUnpacker.unpackFloat(ClientMessageUnpacker.java:339)")


def _verdict(vector, op, verdict, detail="", rules=("GEN-TRUNC",)):
    return {"runner": "ignite-java", "vector": vector, "op": op, "verdict": verdict, "outcome": verdict,
            "detail": detail, "rules": list(rules), "diagnosis": []}


def _run(tmp_path, verdicts, *extra):
    if subprocess.run([sys.executable, str(ROOT / "tools" / "ignite_upstream.py"), "ignite", "--ref", "3.1.0"],
                      capture_output=True).returncode == 3:
        pytest.skip("no apache/ignite-3 3.1.0 source: set IGNITE3_SRC to a checkout")
    report = tmp_path / "report.json"
    report.write_text(json.dumps({"verdicts": verdicts}))
    out = tmp_path / "ef.txt"
    r = subprocess.run([sys.executable, str(TOOL), "--ref", "3.1.0", str(report), "--out", str(out), *extra],
                       capture_output=True, text=True)
    return r, out


def test_a_skip_is_listed_under_its_cause_with_the_refs_line(tmp_path):
    r, out = _run(tmp_path, [_verdict("float.cut.a", "reject", "skip", NETTY),
                             _verdict("float.cut.b", "reject", "pass")])
    assert r.returncode == 0, r.stderr
    text = out.read_text()
    header = [line for line in text.splitlines() if line.startswith("## cause:")]
    assert len(header) == 1 and "netty's IndexOutOfBoundsException" in header[0]
    assert "ClientMessageUnpacker.java:485@3.1.0" in header[0] and "fixed-on-main: no" in header[0]
    # float.cut.b passes, so no glob may cover it: the exact id is listed.
    assert "float.cut.a  reject  skipped: IndexOutOfBoundsException in ClientMessageUnpacker.unpackFloat" in text
    assert "float.cut.*" not in text
    assert subprocess.run([sys.executable, str(TOOL), "--ref", "3.1.0", str(tmp_path / "report.json"), "--out",
                           str(out), "--check"], capture_output=True).returncode == 0


def test_an_unexplained_failure_writes_nothing(tmp_path):
    r, out = _run(tmp_path, [_verdict("float.cut.a", "reject", "skip", NETTY),
                             _verdict("float.odd", "decode", "fail", "values differ at $[0].bits")])
    assert r.returncode == 1 and "float.odd" in r.stderr
    assert not out.exists()


def test_faults_are_never_listed(tmp_path):
    r, out = _run(tmp_path, [_verdict("float.cut.a", "reject", "crash", "runner exited")])
    assert r.returncode == 1 and "never listed" in r.stderr
    assert not out.exists()
