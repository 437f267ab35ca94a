"""docs/add-your-client.md beyond the tutorial's outputs (tests/test_harness_protocol_doc.py): the vectors the
hazards checklist names exist, its expected-failures example parses, the commands it shows exist, and what it
says the harness prints about '-k float.*' is what the harness prints."""

import fnmatch
import functools
import io
import re
import subprocess

from harness import corpus_cache, expectations, selection
from harness_fixtures.harness_helpers import PY, REPO

DOC = (REPO / "docs" / "add-your-client.md").read_text()


@functools.lru_cache(maxsize=None)
def repository_catalog():
    return corpus_cache.open_corpus(REPO / "vectors")[0]


def section(title):
    return DOC.split(f"## {title}", 1)[1].split("\n## ", 1)[0]


def test_every_vector_glob_the_hazards_checklist_names_matches_vectors():
    catalog = repository_catalog()
    globs = re.findall(r"`([a-z0-9-]+(?:\.[a-z0-9-]+)*\.\*)`", section("Library hazards"))
    assert len(globs) >= 6
    for glob in globs:
        assert fnmatch.filter(catalog.ids, glob), f"the checklist names `{glob}`, which matches no vector"
    hexes = {v.get("canonical") for v in catalog.vectors(fnmatch.filter(catalog.ids, "float32.*"))}
    assert "ca7fc00001" in hexes


def test_the_scoped_expected_failures_example_parses(tmp_path):
    block = re.search(r"## Expected failures by scope.*?```\n(.*?)```", DOC, re.S).group(1)
    path = tmp_path / "expected-failures.txt"
    path.write_text(block)
    entries = expectations.parse(path)
    assert [e.scope for e in entries] == [None, ("family", "float"), ("era", "alpha3"), ("format", "table-row")]


def test_the_k_family_hint_is_what_the_doc_says():
    catalog = repository_catalog()
    err = io.StringIO()
    selection.select(catalog, patterns=["float.*"], stderr=err)
    assert "the family 'float' has" in err.getvalue() and "use --family float" in err.getvalue()
    assert "`-k 'float.*'` matches\n  almost nothing" in DOC or "`-k 'float.*'` matches" in DOC
    assert not fnmatch.filter(catalog.ids, "float.*")[1:], "more than one id starts with 'float.'"


def test_the_commands_shown_exist():
    bench = subprocess.run([PY, "tools/bench_hostile.py", "--help"], cwd=REPO, capture_output=True, text=True)
    assert "--command" in bench.stdout
    gate = (REPO / "ci" / "gate.sh").read_text()
    for variable in ("REQUIRE", "BENCH_HOSTILE", "EXPECTED_FAILURES"):
        assert "${" + variable in gate and variable in DOC
    verify = subprocess.run([PY, "-m", "harness", "verify", "--help"], cwd=REPO, capture_output=True, text=True)
    for option in ("--require", "--family", "--case", "--corpus", "--no-cache"):
        assert option in verify.stdout and option in DOC
