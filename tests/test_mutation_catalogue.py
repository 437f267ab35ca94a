"""The mutant catalogue (mutation/): the checks that need no run, the verdict logic, and the fast subset that
make test runs: every historical Ignite client bug and community-client mistake in the catalogue must be killed
by the corpus (or be triaged), so a corpus change that lets one survive fails CI. The full catalogue is
`make mutation` (mutation/README.md)."""
import json
import subprocess
import sys

from mutation import catalogue as cat


def test_every_entry_applies_to_todays_runner_files_and_the_triage_names_real_mutants():
    runners, mutants = cat.load()
    assert cat.problems(runners, mutants, cat.load_triage()) == []


def test_every_must_rule_of_sections_4_to_6_has_a_mutant():
    _, mutants = cat.load()
    assert len(cat.must_rules()) > 80      # the parse of spec.md found the rules at all
    assert cat.uncovered(mutants) == []


def test_a_rule_without_a_mutant_and_a_bad_edit_are_reported():
    runners, mutants = cat.load()
    some = [m for m in mutants if m["rules"] != ["MP-NIL"]]
    assert any("MP-NIL" in line for line in cat.uncovered(some))
    broken = dict(mutants[0], search="text that is in no runner file")
    assert any("occurs 0 times" in line for line in cat.problems(runners, [broken], {}))
    assert any("no such mutant" in line for line in cat.problems(runners, mutants[:1], {"py.nope": {"status": "equivalent", "why": "x"}}))


def test_survivors_need_a_triage_that_holds():
    def result(mid, status):
        return {"id": mid, "status": status, "failures": 1 if status == "killed" else 0,
                "killers": ["v"] if status == "killed" else [], "detail": "x"}
    triage = {"a": {"status": "equivalent", "why": "same bytes"}, "b": {"status": "gap", "why": "w", "sources": ["s"], "vectors": ["v"]},
              "c": {"status": "impl", "why": "w", "rule": "BT-TRAILING"}}
    assert cat.unexplained([result("a", "survived"), result("c", "survived"), result("b", "killed"), result("d", "killed")], triage) == []
    problems = cat.unexplained([result("d", "survived"), result("b", "survived"), result("a", "killed"), result("e", "error")], triage)
    assert [p.split(":")[0] for p in problems] == ["d", "b", "a", "e"]


def test_historical_and_community_mutants_are_killed(tmp_path):
    """Runs each such mutant of the Python runner over the whole corpus, stopping at its first failing verdict."""
    p = subprocess.run([sys.executable, "-m", "mutation.run", "--historical", "--first-kill", "--out", str(tmp_path)],
                       cwd=cat.ROOT, capture_output=True, text=True)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    results = json.loads((tmp_path / "catalogue.json").read_text(encoding="utf-8"))["mutants"]
    assert len(results) >= 20 and all(r["historical"] or r["community"] for r in results)
