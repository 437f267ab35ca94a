#!/usr/bin/python3
"""Regenerates the dashboard fixture: a small corpus cut from vectors/ plus two deliberately wrong vectors, and
report.json / junit.xml from running the real python runner and a crashing oracle over it.

    /usr/bin/python3 tests/dashboard_fixtures/make_fixture.py

The wrong vectors give the report a 'fail' (seed.fixture.int32-year: the corpus claims int32 is canonical for 2005)
and an 'xfail' (str.fixture.header-str8, listed in runners/python/expected-failures.txt); the oracle gives a 'crash'.
"""

import io
import json
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(REPO))

from harness import cli  # noqa: E402

# family file -> ids taken from the real corpus
PICK = {
    "int": ["int.fixint.p0", "int.uint64.int64-max", "int.out-of-range.2p64"],
    "str": ["str.empty", "str.sample.eleven-ascii", "str.invalid-utf8.overlong-2-slash"],
    "ignite-uuid": ["ignite.3.0.uuid.nil", "ignite.alpha5.uuid.payload-length0"],
    "ignite-temporal": ["ignite.alpha4.datetime.epoch", "ignite.alpha5.date.invalid.feb-30"],
    "float": ["float64.nan.quiet.bits"],
    "malformed": ["reserved.c1.nested", "truncated.array16-missing-elements"],
    "seed": ["seed.iep75.sql-request"],
}


def wrong_vectors(real):
    """Copies of real vectors whose expectation is deliberately wrong, so a correct runner fails them."""
    seed = dict(real["seed.iep75.sql-request"])
    seed.update(id="seed.fixture.int32-year", variants=[],
                description="FIXTURE: like seed.iep75.sql-request, but claims int32 (d2) is canonical for 2005",
                canonical=seed["canonical"].replace("cd07d5", "d2000007d5"))
    s = dict(real["str.sample.eleven-ascii"])
    s.update(id="str.fixture.header-str8", values=[{"type": "str", "value": "abc"}], canonical="d903616263",
             variants=[], description="FIXTURE: claims str8 is canonical for a 3-byte string (expected to fail)")
    return {"seed": [seed], "str": [s]}


def main():
    real, files = {}, {}
    for family in PICK:
        data = json.loads((REPO / "vectors" / f"{family}.json").read_text())
        files[family] = data
        real.update({v["id"]: v for v in data["vectors"]})
    missing = [i for ids in PICK.values() for i in ids if i not in real]
    if missing:
        sys.exit(f"make_fixture: not in vectors/: {missing}")
    extra = wrong_vectors(real)
    corpus = HERE / "corpus"
    shutil.rmtree(corpus, ignore_errors=True)
    corpus.mkdir()
    for family, ids in PICK.items():
        data = dict(files[family], vectors=[real[i] for i in ids] + extra.get(family, []),
                    description="Dashboard fixture cut from vectors/" + family + ".json: " + files[family]["description"])
        (corpus / f"{family}.json").write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        argv = ["verify", "--corpus", str(corpus), "--runners-dir", str(HERE / "runners"),
                "--runners", "python,oracle", "--out", str(out), "--window", "1"]
        stdout, stderr = io.StringIO(), io.StringIO()
        code = cli.main(argv, stdout, stderr)
        print(stdout.getvalue(), stderr.getvalue(), sep="", end="")
        if code != 1:
            sys.exit(f"make_fixture: expected the run to fail (exit 1), got {code}")
        for name in ("report.json", "junit.xml"):
            # Absolute paths of this checkout become repository-relative, so the fixture reads the same anywhere.
            text = (out / name).read_text().replace(str(REPO) + "/", "")
            (HERE / name).write_text(text)
    print(f"wrote {corpus}, {HERE / 'report.json'}, {HERE / 'junit.xml'}")


if __name__ == "__main__":
    main()
