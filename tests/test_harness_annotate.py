"""harness annotate --format binary-tuple|object|object-array|table-row, and the tuple inside the bin in the
diagnoses of object and table-row vectors."""

import io

from harness import cli
from harness_fixtures.harness_helpers import REPO, oracle_command, run

OBJECT_INT64 = "c40e0001020a050000f2052a01000000"       # vector bt.object.int64-5e9


def annotate(*args):
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(["annotate", *args], out, err)
    return code, out.getvalue(), err.getvalue()


def test_annotate_object_shows_the_triple_inside_the_bin():
    code, out, _ = annotate(OBJECT_INT64, "--format", "object")
    assert code == 0
    lines = out.splitlines()
    assert "[0].bin.payload: a Binary Tuple of 3 elements (14 bytes):" in lines[2]
    assert lines[3].split()[:2] == ["2", "00"] and "header flags 00" in lines[3]
    assert lines[-1].split()[:2] == ["8", "00"] and lines[-1].endswith("element 2 (value): 8 bytes")
    assert "element 0 (type id): 1 bytes" in out and "element 1 (scale): 1 bytes" in out


def test_annotate_table_row_and_object_array():
    code, out, _ = annotate("c70008c4050001020161", "--format", "table-row", "--columns", "INT32,STRING")
    assert code == 0 and "[0].ext(8).type  type 8" in out and out.rstrip().endswith("element 1 (STRING): 1 bytes")
    code, out, _ = annotate("03c410000102030405060606060400010f0061", "--format", "object-array")
    assert code == 0 and "a Binary Tuple of 9 elements" in out and "element 8 (object 2 value): 0 bytes (NULL)" in out


def test_annotate_binary_tuple_needs_columns_and_hex_must_be_hex():
    assert annotate("000100", "--format", "binary-tuple", "--columns", "INT8")[1].rstrip().endswith(
        "element 0 (INT8): 1 bytes")
    code, _, err = annotate("000100", "--format", "binary-tuple")
    assert code == 2 and "needs --columns" in err
    code, _, err = annotate("zz")
    assert code == 2 and "not a hex string" in err
    assert annotate("cd01")[1].splitlines()[1].endswith("truncated: uint16 needs 2 bytes, 1 remain")


def test_object_encode_diagnosis_annotates_the_tuple_in_the_bin(tmp_path):
    corpus = REPO / "vectors" / "bt-object.json"
    r = run(tmp_path, "--case", "bt.object.int64-5e9", corpus=corpus,
            commands=[oracle_command("--break", "bt.object.int64-5e9:encode:12", "--formats", "object",
                                               corpus=corpus)])
    assert r.code == 1
    diagnosis = r.record("bt.object.int64-5e9", "encode")["diagnosis"]
    marked = [line for line in diagnosis if line.startswith("  >")]
    assert marked and all("element 2 (value): 8 bytes" in line for line in marked), diagnosis
