"""Unit tests: the MessagePack annotator, typed-value comparison, NaN-class byte matching, corpus loading."""

import collections
import json
from types import SimpleNamespace

import pytest

from harness_fixtures.harness_helpers import CORPUS  # noqa: F401  (puts the repo on sys.path)
from harness import values
from harness.diagnosis import annotated, byte_diff
from harness.judge import _bytes_match
from harness.msgpack_annotate import annotate, annotate_window, path_at


def paths(hex_):
    segments, error = annotate(bytes.fromhex(hex_))
    return [(s.start, s.end, s.path) for s in segments], error


@pytest.mark.parametrize("hex_, offset, path", [
    ("0192a178c0", 4, "[1].items[1]"),
    ("0192a178c0", 3, "[1].items[0].str.payload"),
    ("d6ff00000001", 5, "[0].ext(-1).payload[3]"),
    ("c70503aabbccddee", 1, "[0].ext.length"),
    ("c70503aabbccddee", 2, "[0].ext(3).type"),
    ("82a16101a16102", 4, "[0].entries[1].key.str.header"),
    ("82a16101a16102", 6, "[0].entries[1].value"),
    ("d90461626364", 0, "[0].str.header"),
    ("d90461626364", 1, "[0].str.length"),
    ("cb3ff0000000000000", 3, "[0].float64.payload[2]"),
    ("de00010102", 2, "[0].map.length"),
    ("c0", 1, "(past the end)"),
])
def test_path_at_offset(hex_, offset, path):
    segments, error = annotate(bytes.fromhex(hex_))
    assert error is None
    assert path_at(segments, offset) == path


@pytest.mark.parametrize("hex_, error, last_path", [
    ("a361", "truncated: the str payload needs 3 bytes, 1 remain", "[0].str.payload"),
    ("92c1", "reserved byte c1", "[0].items[0]"),
    ("cd01", "truncated: uint16 needs 2 bytes, 1 remain", "[0].int.payload"),
    ("ddffffffff", "truncated: a value needs 1 bytes, 0 remain", "[0].items[0]"),
    ("c7", "truncated: the ext length needs 1 bytes, 0 remain", "[0].ext.length"),
])
def test_malformed_bytes_stop_the_walk_cleanly(hex_, error, last_path):
    segments, err = annotate(bytes.fromhex(hex_))
    assert err == error
    assert segments[-1].part == "malformed" and segments[-1].path == last_path
    assert segments[-1].end == len(bytes.fromhex(hex_))


@pytest.mark.parametrize("hex_", ["dc00ff" + "c0" * 255, "de0003" + "01c0" * 3, "92" + "a3616263" * 2, "a361",
                                  "ddffffffff" + "c2" * 40, "91" * 700 + "c0", ""])
@pytest.mark.parametrize("head, tail, focus", [(48, 16, None), (3, 2, None), (0, 0, 5), (4, 4, 1), (48, 16, 200),
                                               (2, 3, 10_000), (0, 1, 0)])
def test_window_keeps_what_the_full_walk_would_show(hex_, head, tail, focus):
    # annotate_window() is the full walk with only these ranges kept: first head, last tail, 8 either side of the
    # range holding focus (of the last range when none holds it).
    segments, error = annotate(bytes.fromhex(hex_))
    keep = set(range(min(head, len(segments)))) | set(range(max(0, len(segments) - tail), len(segments)))
    if focus is not None and segments:
        at = next((i for i, s in enumerate(segments) if s.start <= focus < s.end), len(segments) - 1)
        keep |= set(range(max(0, at - 8), min(len(segments), at + 9)))
    assert annotate_window(bytes.fromhex(hex_), head, tail, focus) == (
        [(i, segments[i]) for i in sorted(keep)], len(segments), error)


def test_deep_nesting_is_bounded():
    segments, error = annotate(bytes.fromhex("91" * 5000 + "c0"))
    assert error.startswith("nested deeper than")
    segments, error = annotate(bytes.fromhex("91" * 512 + "c0"))
    assert error is None and segments[-1].path.count(".items[0]") == 512


def test_annotated_lines_mark_the_focus():
    lines = annotated(bytes.fromhex("92a3616263c3"), focus=3)
    assert lines[2].startswith("  >     2  61 62 63")
    assert "[0].items[0].str.payload  'abc'" in lines[2]


def test_byte_diff_when_actual_is_shorter():
    lines = byte_diff(bytes.fromhex("92c0c0"), bytes.fromhex("92c0"))
    assert lines[0] == "first difference at byte offset 2: expected path [0].items[1], actual path (past the end)"


def test_value_comparison_is_strict_json_equality():
    assert values.first_difference([{"type": "int", "value": "1"}], [{"type": "int", "value": "1"}]) is None
    assert values.first_difference([{"type": "bool", "value": True}], [{"type": "bool", "value": 1}]) == "$[0].value"
    assert values.first_difference([{"type": "nil"}], []) == "$[0]"
    assert values.first_difference([], [{"type": "nil"}]) == "$[0]"
    assert values.first_difference([{"type": "map", "entries": []}], [{"type": "map", "entries": [], "x": 1}]) == "$[0]"


def test_nan_class_values():
    nan64 = {"type": "float64", "bits": "7ff8000000000001"}
    assert values.first_difference([nan64], [{"type": "float64", "bits": "fff0000000000abc"}], True) is None
    assert values.first_difference([nan64], [{"type": "float64", "bits": "fff0000000000abc"}], False) == "$[0].bits"
    assert values.first_difference([nan64], [{"type": "float64", "bits": "7ff0000000000000"}], True) == "$[0]"
    assert values.first_difference([nan64], [{"type": "float32", "bits": "7fc00000"}], True) == "$[0]"


def test_nan_class_bytes():
    canonical = bytes.fromhex("92cb7ff8000000000001ca3f800000")
    assert _bytes_match(canonical, bytes.fromhex("92cbfff0000000000abcca3f800000"), True)
    assert not _bytes_match(canonical, bytes.fromhex("92cbfff0000000000abcca3f800000"), False)
    assert not _bytes_match(canonical, bytes.fromhex("92cb7ff0000000000000ca3f800000"), True)   # infinity
    assert not _bytes_match(canonical, bytes.fromhex("92cb7ff8000000000001ca3f800001"), True)   # not a NaN spot
    assert not _bytes_match(canonical, bytes.fromhex("92ca7fc00001ca3f800000"), True)           # narrowed


def test_fixture_corpus_loads_sorted():
    from harness.corpus import load
    corpus = load(CORPUS)
    ids = [v["id"] for v in corpus.vectors]
    assert ids == sorted(ids) and len(ids) == len(set(ids)) == 16
    assert {v["kind"] for v in corpus.vectors} == {"value", "decode-reject", "encode-reject"}
    assert json.loads((CORPUS / "basic.json").read_text())["corpus_version"] == corpus.version


def test_report_layers_read_back_as_the_same_value_with_one_verdict_per_line():
    from harness import report
    value = {"verdicts": [{"id": "a", "diagnosis": ["x", {"n": 1.5}], "empty": {}}, {"id": "ü\u2028", "l": []}],
             "n": None, "flag": True, "nested": {"deep": [[1, 2], {"k": "v"}]}, "none": []}
    text = report.layered_json(value, report.LAYERS)
    assert json.loads(text) == value
    lines = text.splitlines()
    assert '  {"id": "a", "diagnosis": ["x", {"n": 1.5}], "empty": {}},' in lines   # a verdict: one line
    assert report.layered_json([], 2) == "[]" and report.layered_json({}, 2) == "{}"


def test_report_verdict_records_are_the_text_of_their_dicts():
    # report.build joins most records' text from shared pieces: it must be what encoding each record's dict gives.
    from harness import report
    from harness.results import Verdict
    rules = ["MP-INT"]
    verdicts = [Verdict("r\u00e9", f"v.{i % 3}", op, verdict, outcome, level, rules if i % 2 else ["X", "Y"], era,
                        detail, diagnosis, answer, matched, expectation)
                for i, (op, verdict, outcome, level, era, detail, diagnosis, answer, matched, expectation) in
                enumerate([("encode", "pass", "pass", "must", "3.0", "wrote the canonical bytes", [], "hex",
                            "canonical", None),
                           ("decode", "xfail", "fail", "should", "msgpack", 'values "differ" \u2028 \u00fc', [],
                            "values", None, "file.txt:3: why"),
                           ("decode", "fail", "fail", "must", "3.0", "values differ", ["a", "b \x01"], None, None,
                            None),
                           ("decode[x]", "info", "pass", "impl", "3.0", "values equal", [], "values", None, None),
                           ("encode", "pass", "pass", "must", "3.0", "wrote the canonical bytes", [], "hex",
                            "canonical", None)] * 3)]
    texts = report.build(SimpleNamespace(version="1.0.0", files=[]), "1.0.0", {"ops": 15},
                         [(SimpleNamespace(name="r\u00e9", argv=["x"], expected_failures="e.txt"),
                           SimpleNamespace(info=None, start_error=None, restarts=0, unmet=[], abandoned=None),
                           verdicts, SimpleNamespace(stale=[], unchecked=[], add=[], remove=[]))])["verdicts"]
    assert texts.texts() == [report._compact(report.record(v)) for v in verdicts]
    assert [json.loads(t) for t in texts.texts()] == [report.record(v) for v in verdicts]
    value = {"verdicts": texts, "n": 1}
    assert json.loads(report.layered_json(value, report.LAYERS)) == {
        "verdicts": [json.loads(t) for t in texts.texts()], "n": 1}
    assert report.layered_json(value, report.LAYERS) == report.layered_json(
        {"verdicts": [report.record(v) for v in verdicts], "n": 1}, report.LAYERS)


def test_report_written_in_pieces_is_the_layered_text():
    from harness import report
    verdicts = [{"id": f"v{i}", "detail": "é\u2028\"x\"", "n": i / 3} for i in range(report.CHUNK * 2 + 5)]
    value = {"corpus": {"files": [{"path": "a"}]}, "verdicts": verdicts, "empty": [], "none": None}
    pieces = []
    report.write_layered(pieces.append, value, report.LAYERS)
    text = "".join(pieces)
    assert len(pieces) > 3 and text == report.layered_json(value, report.LAYERS)
    assert json.loads(text) == value
    assert text.split("\n")[5] == '  {"id": "v0", "detail": "é\u2028\\"x\\"", "n": 0.0},'


def _junit_by_element_tree(path, runs):
    """What junit.write wrote before it wrote text itself: xml.etree elements, the same attributes and texts."""
    import xml.etree.ElementTree as ET
    from harness.results import FAILING, FAULTS

    def clean(text):
        return "".join(c if c in "\t\n\r" or ord(c) >= 0x20 else f"\\x{ord(c):02x}" for c in text)

    root = ET.Element("testsuites")
    for name, verdicts in runs:
        suite = ET.SubElement(root, "testsuite", name=name, tests=str(len(verdicts)),
                              failures=str(sum(v.verdict in ("fail", "xpass", "skip") for v in verdicts)),
                              errors=str(sum(v.verdict in FAULTS for v in verdicts)),
                              skipped=str(sum(v.verdict in ("xfail", "unclaimed") for v in verdicts)))
        for v in verdicts:
            case = ET.SubElement(suite, "testcase", classname=f"{name}.{v.vector.split('.')[0]}",
                                 name=f"{v.vector} {v.op}")
            if v.verdict in FAILING:
                element = ET.SubElement(case, "error" if v.verdict in FAULTS else "failure", type=v.verdict,
                                        message=clean(f"{v.verdict}: {v.detail}"))
                element.text = clean("\n".join([v.detail] + v.diagnosis))
            elif v.verdict == "xfail":
                ET.SubElement(case, "skipped", message=clean(f"expected failure ({v.expectation}): {v.detail}"))
            elif v.verdict == "unclaimed":
                ET.SubElement(case, "skipped", message=clean(f"unclaimed: {v.detail}"))
            elif v.verdict == "info":
                ET.SubElement(case, "system-out").text = clean(f"impl-level, {v.outcome}: {v.detail}")
            elif v.verdict == "coarse":
                ET.SubElement(case, "system-out").text = clean(f"coarse: {v.detail}")
    ET.ElementTree(root).write(path, encoding="utf-8", xml_declaration=True)


def test_junit_text_is_what_element_tree_writes(tmp_path):
    from harness import junit
    from harness.results import ORDER, Verdict
    tricky = 'a&b <c> "q" \'s\' \t\r\n\x01\x1f é \u2028 \U0001F600 \ud800'
    verdicts = [Verdict("r&<\"", f"fam{i % 3}.x{tricky if i % 2 else ''}.y", f"op{tricky if i % 5 else ''}", verdict,
                        "fail" if i % 4 else "pass", "must", ["R1"], "3.0", tricky if i % 3 else "",
                        [tricky, "line2"] if i % 2 else [], expectation=tricky)
                for i, verdict in enumerate(ORDER * 3)]
    runs = [("r&<\"", verdicts), ("empty", []), ("plain", verdicts[:3])]
    junit.write(tmp_path / "text.xml", runs)
    _junit_by_element_tree(tmp_path / "tree.xml", runs)
    assert (tmp_path / "text.xml").read_bytes() == (tmp_path / "tree.xml").read_bytes()
    junit.write(tmp_path / "none.xml", [])
    _junit_by_element_tree(tmp_path / "none-tree.xml", [])
    assert (tmp_path / "none.xml").read_bytes() == (tmp_path / "none-tree.xml").read_bytes()


def test_journal_lines_are_json_dumps_of_their_records(tmp_path):
    from harness import journal, ops
    from harness.judge import Outcome
    vector = {"id": "a.\"b\u00e9", "kind": "value", "era": "msgpack", "values": [], "canonical": "", "variants": []}
    op, other = ops.ops_for(vector)[:2]
    outcomes = [Outcome("pass", "values equal", answer="values"), Outcome("pass", "values equal", answer="values"),
                Outcome("skip", "runner skipped: \", \"outcome\": \u2028x"), Outcome("fail", "bad", ["d1"], "hex"),
                Outcome("pass", "wrote variant 'v' (encoder_may_emit)", answer="hex", matched="v\u00e9")]
    log = journal.Journal(tmp_path / "j.jsonl", "1.0.0", ["r"], 5)
    for runner in ("r\u00e9", "s"):
        for o in outcomes:
            for each in (op, other):
                log.add(runner, each, o)
    log.close("complete")
    lines = (tmp_path / "j.jsonl").read_text().splitlines()[1:-1]
    assert lines == [json.dumps(journal.record(runner, each, o)) for runner in ("r\u00e9", "s") for o in outcomes
                     for each in (op, other)]


def test_the_window_stops_filling_at_its_byte_cap():
    from types import SimpleNamespace
    from harness import ops, runner_session
    from harness.runner_session import RunnerResult, Session

    class Runner:
        """Answers the oldest unanswered request with the canonical bytes; counts the unanswered bytes."""
        def __init__(self):
            self.unanswered, self.most = [], 0

        def send(self, data):
            for line in data.splitlines(keepends=True):
                self.unanswered.append((json.loads(line)["id"], len(line)))
            self.most = max(self.most, sum(size for _, size in self.unanswered))

        def read_line(self, deadline):
            rid, _ = self.unanswered.pop(0)
            return b'{"id":%d,"hex":"c0"}\n' % rid

    big = "x" * (1 << 20)    # requests of ~1 MiB each: 8 of them fill the byte cap, far below the window of 64
    vectors = [{"id": f"big.{i}", "kind": "value", "era": "msgpack", "canonical": "c0", "variants": [],
                "values": [{"type": "str", "value": big}]} for i in range(20)]
    plan = [op for v in vectors for op in ops.ops_for(v) if op.name == "encode"]
    session = Session(SimpleNamespace(name="fake"), "1.0.0", 10, 10, window=64)
    session.proc = runner = Runner()
    result = RunnerResult("fake")
    session._exchange(collections.deque(plan), result)
    assert [o.verdict for o in result.outcomes.values()] == ["pass"] * len(plan)
    assert runner_session.WINDOW_BYTES < runner.most <= runner_session.WINDOW_BYTES + len(plan[0].request_line(1))
