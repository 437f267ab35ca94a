"""The official clients' table (dashboard/official.py, tools/official_table.py, docs/official-clients.md) on fixture
runs: the oracle test double, named as the official runners, run by the harness per Ignite ref over the harness
fixture corpus with wrong answers planted and listed under cause headers, as the real runs will be."""

import io
import json
import re
import sys

import pytest

from dashboard_fixtures.dashboard_helpers import build, page_data
from harness_fixtures.harness_helpers import CORPUS, REPO, oracle_command, run

from dashboard import official

sys.path.insert(0, str(REPO / "tools"))
import official_table  # noqa: E402

# ignite-cpp deviates: a cut str read as data (reject), two encodes (wide int, str8); it answers 'malformed' for a
# reserved byte (declared coarse). At 3.0.0 it also reads nil wrongly; main is not run (its file is there).
CPP_3_1_0 = """\
# ignite-cpp at 3.1.0 (docs/official-clients.md)
## cause: truncated MessagePack read as nil | rule: GEN-TRUNC | upstream: modules/platforms/cpp/ignite/protocol/reader.h:57@3.1.0 | fixed-on-main: no
# msgpack-c's continue result is taken as data.
reject.truncated.str  reject  reader.h: a cut str is read as nil
## cause: wide headers written | rule: MP-INT-CANON, MP-STR-HEADER | upstream: modules/platforms/cpp/ignite/protocol/writer.cpp:10-12@3.1.0, modules/platforms/cpp/ignite/protocol/writer.h:5@3.1.0 | fixed-on-main: yes 35d0692e3e2
basic.int.small  encode  writes int16
basic.str.abc    encode  writes str8
"""
CPP_3_0_0 = CPP_3_1_0.replace("@3.1.0", "@3.0.0").replace("at 3.1.0", "at 3.0.0") + """\
## cause: nil read as false | rule: MP-NIL | upstream: modules/platforms/cpp/ignite/protocol/reader.cpp:20@3.0.0 | fixed-on-main: n/a
basic.nil  decode  reads c0 as false
"""
CPP_MAIN = CPP_3_1_0.replace("@3.1.0", "@main").replace("at 3.1.0", "at main")
CPP_BREAKS = {"3.1.0": ["reject.truncated.str:reject", "basic.int.small:encode", "basic.str.abc:encode"],
              "3.0.0": ["reject.truncated.str:reject", "basic.int.small:encode", "basic.str.abc:encode",
                        "basic.nil:decode"]}


@pytest.fixture(scope="module")
def official_runs(tmp_path_factory):
    """(official dir, runners dir): reports of 3.0.0 and 3.1.0 (ignite-cpp and ignite-java; ignite-dotnet not run)."""
    root = tmp_path_factory.mktemp("official")
    runners, out = root / "runners", root / "official"
    for ref, text in (("3.0.0", CPP_3_0_0), ("3.1.0", CPP_3_1_0), ("main", CPP_MAIN)):
        (runners / "ignite-cpp").mkdir(parents=True, exist_ok=True)
        (runners / "ignite-cpp" / f"expected-failures-{ref}.txt").write_text(text)
    for ref, breaks in CPP_BREAKS.items():
        cpp = oracle_command(*[x for b in breaks for x in ("--break", b)], "--coarse-classes", "malformed",
                             "--reject-as", "reject.reserved:malformed", name="ignite-cpp")
        r = run(root / f"run-{ref}", "--out", str(out / ref), "--no-matrix", "--expected-failures",
                f"ignite-cpp={runners / 'ignite-cpp' / f'expected-failures-{ref}.txt'}",
                runners="ignite-cpp,ignite-java", commands=[cpp, oracle_command(name="ignite-java")])
        assert r.code == 0, r.stdout
    return out, runners


def summary_of(official_runs, **kw):
    out, runners = official_runs
    rules = [r["id"] for r in json.loads((REPO / "schema" / "registry.json").read_text())["rules"]]
    return official.build(out, runners, rule_ids=rules, **kw)


def test_counts_per_client_and_ref(official_runs):
    s = summary_of(official_runs)
    rows = {(r["runner"], r["ref"]): r for r in s["rows"]}
    assert len(rows) == 9 and s["problems"] == []
    cpp = rows[("ignite-cpp", "3.1.0")]
    assert cpp["run"] and cpp["commit"] == "0ed2eab1ff1"
    assert cpp["counts"] == {"pass": 25, "coarse": 1, "xfail": 3, "info": 3, "unclaimed": 0, "unexpected": 0}
    assert rows[("ignite-cpp", "3.0.0")]["counts"]["xfail"] == 4
    assert rows[("ignite-java", "3.1.0")]["counts"] == {"pass": 29, "coarse": 0, "xfail": 0, "info": 3,
                                                         "unclaimed": 0, "unexpected": 0}
    assert not rows[("ignite-cpp", "main")]["run"] and not rows[("ignite-dotnet", "3.1.0")]["run"]


def test_deviations_by_cause_merge_refs_by_title(official_runs):
    causes = {c["title"]: c for c in summary_of(official_runs)["causes"]["ignite-cpp"]}
    assert list(causes) == ["truncated MessagePack read as nil", "wide headers written", "nil read as false"]
    nil = causes["truncated MessagePack read as nil"]
    assert nil["rules"] == ["GEN-TRUNC"] and nil["fixed"] == "no" and nil["notes"] == ["msgpack-c's continue result is taken as data."]
    assert nil["by_ref"] == {"3.0.0": {"entries": 1, "verdicts": 1}, "3.1.0": {"entries": 1, "verdicts": 1},
                             "main": {"entries": 1, "verdicts": None}}
    wide = causes["wide headers written"]
    assert wide["by_ref"]["3.1.0"] == {"entries": 2, "verdicts": 2} and wide["fixed"] == "yes 35d0692e3e2"
    assert [u["text"] for u in wide["upstream"]][:2] == [
        "modules/platforms/cpp/ignite/protocol/writer.cpp:10-12@3.0.0", "modules/platforms/cpp/ignite/protocol/writer.h:5@3.0.0"]
    assert wide["upstream"][0]["url"] == ("https://github.com/apache/ignite-3/blob/947054a91486eb355a4c067566f4aa15a7044203/"
                                          "modules/platforms/cpp/ignite/protocol/writer.cpp#L10-L12")
    assert causes["nil read as false"]["by_ref"] == {"3.0.0": {"entries": 1, "verdicts": 1}}


def test_markdown_block_links_rules_to_spec_sections_and_lines_upstream(official_runs):
    s = summary_of(official_runs)
    anchors = official.spec_anchors((REPO / "spec.md").read_text())
    md = official.markdown(s, anchors)
    assert md.startswith(official.BEGIN) and md.rstrip().endswith(official.END)
    assert "| ignite-cpp | 3.1.0 (0ed2eab1ff1) | 0 | 25 | 1 | 3 | 0 | 3 | 0 |" in md
    assert "| ignite-dotnet | main (d46ac208937) | not run | - | - | - | - | - | - |" in md
    line = next(x for x in md.splitlines() if x.startswith("| truncated MessagePack read as nil |"))
    assert line.endswith("| no | 1 | 1 | not run (1 entries) |")
    assert f"[GEN-TRUNC](spec.md#{anchors['GEN-TRUNC']})" in line
    assert "[modules/platforms/cpp/ignite/protocol/reader.h:57@3.1.0](https://github.com/apache/ignite-3/blob/" \
           "0ed2eab1ff1b4b9db351b07356f9f669c7a5daaa/modules/platforms/cpp/ignite/protocol/reader.h#L57)" in line
    assert "Deviations of ignite-java by cause (xfail verdicts per ref):\n\nNone listed." in md
    # The anchor is the GitHub slug of the spec.md heading the rule is defined under.
    spec = (REPO / "spec.md").read_text()
    head = spec[:spec.index("**MP-NIL**")].rsplit("\n#", 1)[1].split("\n", 1)[0].lstrip("#").strip()
    assert head == "4.3 nil and bool" and anchors["MP-NIL"] == "43-nil-and-bool"


@pytest.mark.parametrize("header, problem", [
    ("## cause: x | rule: GEN-TRUNC | upstream: a/b.h:3@3.1.0", "lacks fixed-on-main"),
    ("## cause: x | rule: gen-trunc | upstream: a/b.h:3@3.1.0 | fixed-on-main: no", "spec rule ids"),
    ("## cause: x | rule: GEN-TRUNC | upstream: a/b.h@3.1.0 | fixed-on-main: no", "expected <path>:<line>"),
    ("## cause: x | rule: GEN-TRUNC | upstream: a/b.h:3@3.2.0 | fixed-on-main: no", "expected <path>:<line>"),
    ("## cause: x | rule: GEN-TRUNC | upstream: a/b.h:9-3@main | fixed-on-main: no", "ends before it starts"),
    ("## cause: x | rule: GEN-TRUNC | upstream: a/b.h:3@main | fixed-on-main: maybe", "expected yes, yes <commit>"),
    ("## cause: x | rules: GEN-TRUNC | upstream: a/b.h:3@main | fixed-on-main: no", "'rules: GEN-TRUNC' is not one of"),
    ("## cause: x | rule: NO-SUCH-RULE | upstream: a/b.h:3@main | fixed-on-main: no", "rule NO-SUCH-RULE is not in"),
    ("# cause: x | rule: GEN-TRUNC | upstream: a/b.h:3@main | fixed-on-main: no", "looks like a cause header"),
])
def test_a_bad_header_is_a_problem(tmp_path, header, problem):
    (tmp_path / "runners" / "ignite-cpp").mkdir(parents=True)
    (tmp_path / "runners" / "ignite-cpp" / "expected-failures-3.1.0.txt").write_text(
        "## cause: fine | rule: MP-NIL | upstream: a/b.h:1@3.1.0 | fixed-on-main: no\nbasic.nil  decode  why\n"
        f"{header}\nbasic.int.small  encode  why\n")
    s = official.build(tmp_path / "none", tmp_path / "runners", rule_ids=["MP-NIL", "GEN-TRUNC"])
    assert any(problem in p for p in s["problems"]), s["problems"]


def test_entries_without_a_cause_and_causes_without_entries_are_problems(tmp_path):
    path = tmp_path / "expected-failures-3.1.0.txt"
    path.write_text("basic.nil  decode  no header above\n"
                    "## cause: empty | rule: none | upstream: a.h:1@main | fixed-on-main: n/a\n")
    causes, problems = official.parse_causes(path)
    assert [c.title for c in causes] == [official.NO_CAUSE, "empty"]
    assert problems == [f"{path}:1: 1 entry stands before any '## cause:' header", f"{path}:2: cause 'empty' has no entry"]


def test_a_cause_fixed_on_main_in_one_file_and_not_in_another_is_a_problem(tmp_path):
    folder = tmp_path / "ignite-java"
    folder.mkdir()
    for ref, fixed in (("3.0.0", "no"), ("3.1.0", "yes")):
        (folder / f"expected-failures-{ref}.txt").write_text(
            f"## cause: c | rule: MP-NIL | upstream: a.h:1@{ref} | fixed-on-main: {fixed}\nbasic.nil  decode  why\n")
    s = official.build(tmp_path / "none", tmp_path, runners=("ignite-java",))
    assert any("says fixed-on-main yes, another ref's file says no" in p for p in s["problems"]), s["problems"]


def test_command_line_prints_writes_and_checks(official_runs, tmp_path):
    out, runners = official_runs
    args = ["--official", str(out), "--runners-dir", str(runners)]
    stdout, stderr = io.StringIO(), io.StringIO()
    assert official_table.main(args, stdout, stderr) == 0
    assert stdout.getvalue().startswith(official.BEGIN)
    readme = tmp_path / "README.md"
    readme.write_text(f"# x\n\n## The official clients\n\n{official.BEGIN}\nold\n{official.END}\n\n## Next\n")
    assert official_table.main(args + ["--readme", str(readme)], io.StringIO(), io.StringIO()) == 0
    text = readme.read_text()
    assert "old" not in text and text.endswith(f"{official.END}\n\n## Next\n") and "| ignite-cpp | 3.1.0" in text
    stderr = io.StringIO()
    assert official_table.main(args + ["--check"], io.StringIO(), stderr) == 0
    assert "3 expected-failures file(s) checked, 0 problem(s)" in stderr.getvalue()
    (runners / "ignite-cpp" / "expected-failures-main.txt").write_text("basic.nil  decode  no cause\n")
    try:
        stderr = io.StringIO()
        assert official_table.main(args + ["--check"], io.StringIO(), stderr) == 1
        assert "before any '## cause:' header" in stderr.getvalue()
    finally:
        (runners / "ignite-cpp" / "expected-failures-main.txt").write_text(CPP_MAIN)
    assert official_table.main(args + ["--readme", str(tmp_path / "none.md")], io.StringIO(), io.StringIO()) == 2


def test_the_readme_block_has_the_tools_shape():
    """README's block is written by tools/official_table.py: its table has the tool's header and one row per client
    and ref, and each client's deviations paragraph. (Its counts are those of the runs it was written from, which
    a fresh clone does not have: `python3 tools/official_table.py --readme README.md` after the runs.)"""
    readme = (REPO / "README.md").read_text()
    block = readme[readme.index(official.BEGIN):readme.index(official.END) + len(official.END)] + "\n"
    s = official.build(REPO / "none", REPO / "runners")
    made = official.markdown(s, official.spec_anchors((REPO / "spec.md").read_text()))

    def shape(md):
        rows = [tuple(x.split(" | ")[:2]) for x in md.splitlines() if x.startswith("| ignite-")]
        return md.splitlines()[:4], rows, re.findall(r"^Deviations of (\S+) by cause", md, re.M)
    assert shape(block) == shape(made)


def test_dashboard_section(official_runs, tmp_path):
    out, runners = official_runs
    assert build(tmp_path / "dash", report=out / "3.1.0" / "report.json", corpus=CORPUS,
                 extra_args=["--official", str(out), "--runners-dir", str(runners)]) == 0
    html = (tmp_path / "dash" / "dashboard.html").read_text()
    assert '<section id="official">' in html and 'href="#official"' in html
    data = page_data(html)["official"]
    assert [r["runner"] for r in data["rows"]][:3] == ["ignite-java"] * 3
    assert {c["title"] for c in data["causes"]["ignite-cpp"]} >= {"wide headers written"}
    # Without --official the section says how to get it.
    assert build(tmp_path / "plain", report=out / "3.1.0" / "report.json", corpus=CORPUS) == 0
    assert "official" not in page_data((tmp_path / "plain" / "dashboard.html").read_text())
    assert re.search(r"renderOfficial\(\)", (REPO / "dashboard" / "page.js").read_text())


def test_an_xfail_is_attributed_by_the_listing_line_whatever_the_path_and_reason():
    # make verify-official gives the file relative to the repository; the reason may hold ':N: ' itself.
    record = {"expectation": "runners/ignite-cpp/expected-failures-3.1.0.txt:12: reader.h:57: reads nil"}
    assert official._line_of(record, REPO / "runners" / "ignite-cpp" / "expected-failures-3.1.0.txt") == 12
    assert official._line_of(record, REPO / "runners" / "ignite-cpp" / "expected-failures-3.0.0.txt") is None
    assert official._line_of({"expectation": None}, "expected-failures-3.1.0.txt") is None
