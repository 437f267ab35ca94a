"""Writes skips-expected.json: what harness/expectations.py's matcher says about skips.txt for the CASES below,
over the real corpus (vectors/), and whether its parser takes each of the LINES below (a loader must refuse the
same lines, naming their line number). Every package's tests check their loader's SkipList against it.

    /usr/bin/python3 packages/testdata/make_skips_expected.py [--check]
"""
import argparse
import json
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT))

from harness import expectations  # noqa: E402

# (vector id, op): hits and misses of every entry of skips.txt, first-entry-wins and op-glob anchoring.
CASES = [
    ("int.fixint.p1", "decode"), ("int.fixint.p1", "decode[uint8]"), ("int.fixint.p1", "encode"),
    ("int.fixint.p12", "encode"), ("int.fixint.p12", "decode"), ("int.fixint.p2", "encode"),
    ("array.count1", "decode[array32]"), ("array.count1", "decode[array16]"), ("array.count1", "decode"),
    ("bt.decimal.length1", "reject"), ("bt.decimal.tuple.scale-32768", "reject-encode"),
    ("bt.decimal.tuple.sm32768.u0", "decode"),
    ("ignite.alpha3.uuid.nil", "decode[ext8]"), ("ignite.alpha3.uuid.nil", "decode[ext16]"),
    ("ignite.alpha3.uuid.nil", "encode"), ("ignite.alpha3.uuid.payload-length0", "reject"),
    ("ignite.alpha4.uuid.nil", "encode"),
    ("bt.row.all-set", "decode[mask-dotnet-cpp]"), ("bt.row.all-set", "decode"),
    ("str.empty", "decode"), ("str.empty", "decode[str8]"), ("str.empty", "encode"),
]


# Skip file lines, each read as the second line of a file (after a comment): the harness refuses some.
LINES = [
    "int.fixint.p1 decode", "Int.fixint.p1 decode reason", "family:Float decode reason", "kind:value decode reason",
    "era: decode reason", "int.fixint.p1 explode reason", "int.fixint.p1 decode[ reason", "int.fixint.p1 Decode x",
    "int.fixint.p1 decode[UINT8] reason", "int.fixint.p1 x* reason", "int.fixint.p1 decode[*] fine",
    "int.fixint.p1 *code fine", "int.fixint.p1 re* fine", "int..p1 decode fine", "format:table-row reject-encode ok",
    "*  *  everything",
]


def scopes(corpus_dir):
    """vector id -> {'family', 'era', 'format'} as the harness's catalog gives them."""
    out = {}
    for path in sorted(corpus_dir.glob("*.json")):
        if path.name == "manifest.json":
            continue
        data = json.loads(path.read_text(encoding="utf-8"))
        for v in data["vectors"]:
            out[v["id"]] = {"family": data["family"], "era": v["era"], "format": v.get("format", "msgpack")}
    return out


def expected(skips_path, corpus_dir):
    entries = expectations.parse(skips_path)
    index, scope_of = expectations.Index(entries), scopes(corpus_dir)
    cases = []
    for vid, op in CASES:
        hits = index.hits(vid, op, scope_of[vid])       # KeyError: a case names a vector the corpus lacks
        cases.append({"id": vid, "op": op, "reason": min(hits, key=lambda e: e.line_no).reason if hits else None})
    return {"cases": cases, "lines": [{"text": text, "valid": _parses(text)} for text in LINES]}


def _parses(text):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "skips.txt"
        path.write_text(f"# a comment\n{text}\n", encoding="utf-8")
        try:
            expectations.parse(path)
        except expectations.ExpectationError as e:
            assert str(e).startswith(f"{path}:2: "), e
            return False
    return True


def render():
    return json.dumps(expected(HERE / "skips.txt", ROOT / "vectors"), indent=1) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--check", action="store_true", help="fail when skips-expected.json is not what this writes")
    target, text = HERE / "skips-expected.json", render()
    if p.parse_args().check:
        if target.read_text(encoding="utf-8") != text:
            print(f"{target} is stale: run /usr/bin/python3 {Path(__file__).relative_to(ROOT)}", file=sys.stderr)
            return 1
        return 0
    target.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
