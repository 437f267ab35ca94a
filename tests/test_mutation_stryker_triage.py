"""Every Stryker survivor in the js runner's codec files is triaged (mutation/stryker-triage.yaml), and the triage
holds up: a known status with a reason, an impl entry names an IMPL rule of spec.md, a gap names the vectors that
kill its mutant now. Needs no Stryker run: the survivors come from the last report under out/ when there is one,
else from the committed summary (mutation/stryker-score.json, written by make mutation-stryker)."""

import json
import re
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "mutation" / "stryker"))
import incremental  # noqa: E402
import triage  # noqa: E402

REPORT = REPO / "out" / "mutation" / "stryker" / "mutation.json"
SCORE = REPO / "mutation" / "stryker-score.json"
TRIAGE = REPO / "mutation" / "stryker-triage.yaml"


def _survivors():
    if REPORT.exists():
        return triage.survivors(json.loads(REPORT.read_text())), str(REPORT.relative_to(REPO))
    return json.loads(SCORE.read_text())["survivors"], str(SCORE.relative_to(REPO))


def test_the_triage_file_is_well_formed():
    assert triage.problems(triage.load(TRIAGE)) == []


def test_every_survivor_is_triaged_and_no_gap_is_left_open():
    found, where = _survivors()
    matched = triage.match(found, triage.load(TRIAGE))
    untriaged = [triage.key_text(found[i]) for i, e in matched.items() if e is None]
    assert untriaged == [], f"survivors in {where} without an entry in {TRIAGE.name} " \
                            f"(python3 mutation/stryker/triage.py lists them with their code)"
    open_gaps = [triage.key_text(found[i]) for i, e in matched.items() if e and e["status"] == "gap"]
    assert open_gaps == [], f"triaged as gaps whose vectors ({where}) do not kill them"


def test_no_entry_is_stale():
    """An equivalent or impl entry that no survivor matches is about code that changed: remove or redo it."""
    found, where = _survivors()
    entries = triage.load(TRIAGE)
    used = {id(e) for e in triage.match(found, entries).values() if e}
    stale = [triage.key_text(e) for e in entries if e["status"] != "gap" and id(e) not in used]
    assert stale == [], f"entries matching no survivor of {where}"


def test_the_committed_score_adds_up():
    summary = json.loads(SCORE.read_text())
    counts = summary["counts"]
    detected = counts.get("Killed", 0) + counts.get("Timeout", 0)
    valid = detected + counts.get("Survived", 0) + counts.get("NoCoverage", 0)
    assert summary["mutants"] == sum(counts.values())
    assert summary["score"] == round(100 * detected / valid, 2)
    assert summary["score_non_equivalent"] == round(100 * detected / (valid - summary["equivalent"]), 2)
    assert len(summary["survivors"]) == counts.get("Survived", 0) + counts.get("NoCoverage", 0)
    assert summary["untriaged"] == 0
    config = (REPO / "mutation" / "stryker" / "stryker.config.mjs").read_text()
    mutated = re.findall(r'"(runners/js/[^"]+)"', re.search(r"mutate: \[([^\]]*)\]", config).group(1))
    assert summary["files"] == sorted(mutated), "the committed score is of the files the configuration mutates"


# The checks themselves: an untriaged survivor and a bad entry are found.
SOURCE = "const a = 1;\nif (x > 127) throw new E('too big');\n"
REPORT_OF_ONE = {"files": {"runners/js/codec.mjs": {"source": SOURCE, "mutants": [
    {"id": "1", "mutatorName": "EqualityOperator", "replacement": "x >= 127", "status": "Survived",
     "location": {"start": {"line": 2, "column": 5}, "end": {"line": 2, "column": 12}}},
    {"id": "2", "mutatorName": "StringLiteral", "replacement": '""', "status": "Killed",
     "location": {"start": {"line": 2, "column": 29}, "end": {"line": 2, "column": 38}}}]}}}
ENTRY = {"file": "runners/js/codec.mjs", "mutator": "EqualityOperator", "original": "x > 127",
         "replacement": "x >= 127", "line": 9, "status": "equivalent", "reason": "no value is 127 at this point"}


def test_a_survivor_is_keyed_by_its_text_not_its_line():
    (found,) = triage.survivors(REPORT_OF_ONE)
    assert (found["original"], found["line"]) == ("x > 127", 2)
    assert triage.match([found], [ENTRY]) == {0: ENTRY}
    assert triage.match([found], [{**ENTRY, "replacement": "x < 127"}]) == {0: None}
    assert triage.match([found, found], [ENTRY]) == {0: ENTRY, 1: None}     # one entry per survivor


@pytest.mark.parametrize("change, words", [
    ({"status": "fine"}, "status 'fine' is none of"),
    ({"reason": "ok"}, "the reason says too little"),
    ({"status": "impl", "rule": "MP-INT-MINIMAL"}, "rule 'MP-INT-MINIMAL' is not an IMPL rule of spec.md"),
    ({"status": "gap"}, "a gap names the vectors that kill it now"),
    ({"original": None}, "no 'original'"),
])
def test_a_bad_entry_is_named(change, words):
    (problem,) = triage.problems([{**ENTRY, **change}])
    assert words in problem
    assert triage.problems([{**ENTRY, "status": "impl", "rule": "BT-TRAILING"}]) == []


def test_the_score_leaves_out_the_equivalent_survivors():
    s = incremental.score(REPORT_OF_ONE, equivalent=0)
    assert (s["counts"], s["score"]) == ({"Killed": 1, "Survived": 1}, 50.0)
    assert incremental.score(REPORT_OF_ONE, equivalent=1)["score_non_equivalent"] == 100.0


def test_a_release_bump_keeps_the_judge_digest_and_a_registry_change_does_not(tmp_path, monkeypatch):
    """The incremental record (mutation/stryker/incremental.py) retests everything when what judges a verdict
    changed; a corpus release's version numbers in the registry are not that (its vector files are retested)."""
    import shutil
    (tmp_path / "harness").mkdir()
    shutil.copytree(REPO / "schema", tmp_path / "schema")
    monkeypatch.setattr(incremental, "REPO", tmp_path)
    before = incremental.judge_digest()
    path = tmp_path / "schema" / "registry.json"
    registry = json.loads(path.read_text())
    path.write_text(json.dumps(dict(registry, corpus_version="9.9.9", spec_version="9.9.9")))
    assert incremental.judge_digest() == before
    registry["frame_layouts"]["messages"][0]["fields"].reverse()
    path.write_text(json.dumps(registry))
    assert incremental.judge_digest() != before


def test_a_release_header_is_no_corpus_change_and_a_vector_change_is():
    text = (REPO / "vectors" / "nil-bool.json").read_text(encoding="utf-8")
    doc = json.loads(text)
    bumped = json.dumps(dict(doc, corpus_version="9.9.9"))
    assert incremental.vectors_digest(bumped) == incremental.vectors_digest(text)
    doc["vectors"][0]["description"] += " (edited)"
    assert incremental.vectors_digest(json.dumps(doc)) != incremental.vectors_digest(text)
