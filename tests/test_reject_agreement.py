"""tools/reject_agreement.py: the lint that flags must-reject vectors the runners answer with different classes."""
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import reject_agreement  # noqa: E402


def verdict(runner, vector, answer, op="reject", level="must"):
    return {"runner": runner, "vector": vector, "op": op, "level": level, "answer": answer}


def report(*verdicts):
    return {"verdicts": list(verdicts)}


def test_agreeing_runners_pass():
    r = report(verdict("a", "v", "error:invalid.tuple-type"), verdict("b", "v", "error:invalid.tuple-type x"))
    assert reject_agreement.disagreements(r) == []


def test_two_classes_are_flagged():
    r = report(verdict("a", "v", "error:malformed.tuple-offsets"), verdict("b", "v", "error:invalid.tuple-type"),
               verdict("a", "w", "error:invalid.utf8"), verdict("b", "w", "error:invalid.utf8"))
    assert reject_agreement.disagreements(r) == [("v", "reject", {"a": "malformed.tuple-offsets", "b": "invalid.tuple-type"})]


def test_a_decode_where_others_refuse_is_flagged():
    r = report(verdict("a", "v", "values"), verdict("b", "v", "error:invalid.tuple-length"))
    assert reject_agreement.disagreements(r)[0][2] == {"a": "accepted", "b": "invalid.tuple-length"}


def test_skips_crashes_impl_vectors_and_value_ops_are_not_compared():
    r = report(verdict("a", "v", "skipped"), verdict("b", "v", None), verdict("c", "v", "error:invalid.utf8"),
               verdict("a", "i", "values", level="impl"), verdict("b", "i", "error:malformed.tuple-offsets", level="impl"),
               verdict("a", "d", "values", op="decode"), verdict("b", "d", "error:invalid.utf8", op="decode"))
    assert reject_agreement.disagreements(r) == []


def test_command_line_exit_status(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(report(verdict("a", "v", "error:x"), verdict("b", "v", "error:y", op="reject"))))
    good = tmp_path / "good.json"
    good.write_text(json.dumps(report(verdict("a", "v", "error:x"))))
    run = lambda p: subprocess.run([sys.executable, str(ROOT / "tools" / "reject_agreement.py"), str(p)],
                                   capture_output=True, text=True)
    assert run(bad).returncode == 1 and "v reject: a=x, b=y" in run(bad).stdout
    assert run(good).returncode == 0
    assert run(tmp_path / "missing.json").returncode == 2
