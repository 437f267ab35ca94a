"""The frame corpus catches the bugs Ignite 3 clients actually shipped (issue 29): a copy of the Python runner with
each bug put back fails it, and the test names the vectors that catch it. The unbroken runner passes every frame
vector.

Each copy is runners/python copied to tmp_path with frames.py patched by small, explicit text replacements (a
replacement whose text is not found fails loudly: frames.py changed and the bug must be put back anew), run by the
harness over the frame families only (--family 'frame-*'), so each run takes seconds."""

import json
import shutil

import pytest

from harness_fixtures.harness_helpers import REPO, run

FAMILIES = "frame-*"

# Each historical bug: the issue, what the client did, and frames.py's text -> the buggy text.
BUGS = {
    "IGNITE-24356": ("features skipped as values (the bin's length read as a count of values to skip) and each "
                     "extension skipped as a single value instead of a key/value pair", [
        ('''        raw = bytes.fromhex(cur.typed(field, "bin")["hex"])
        return [8 * i + j for i, byte in enumerate(raw) for j in range(8) if byte >> j & 1]''',
         '''        raw = bytes.fromhex(cur.typed(field, "bin")["hex"])
        for _ in range(len(raw)):      # BUG IGNITE-24356: the features as a count of values to skip
            cur.next(field)
        return []'''),
        ('''        for i in range(cur.count(f"{field} count")):    # one pair per loop: a count over the values runs out
            key = cur.typed(f"{field}[{i}] key", "str")["value"]
            pairs.append([key, cur.next(f"{field}[{i}] value")])
        return pairs''',
         '''        for i in range(cur.count(f"{field} count")):
            cur.next(f"{field}[{i}]")  # BUG IGNITE-24356: one value per extension, not a key and a value
        return pairs'''),
    ]),
    "IGNITE-27886": ("a features bit set longer than 4 bytes refused", [
        ('''        raw = bytes.fromhex(cur.typed(field, "bin")["hex"])
        return [''',
         '''        raw = bytes.fromhex(cur.typed(field, "bin")["hex"])
        check(len(raw) <= 4, "limit.features", "BUG IGNITE-27886: features longer than 4 bytes")
        return ['''),
    ]),
    "IGNITE-20375": ("extensions read and written as a MessagePack map (header + entries), not a count and pairs", [
        ('''        pairs = []
        for i in range(cur.count(f"{field} count")):    # one pair per loop: a count over the values runs out
            key = cur.typed(f"{field}[{i}] key", "str")["value"]
            pairs.append([key, cur.next(f"{field}[{i}] value")])
        return pairs''',
         '''        # BUG IGNITE-20375: the extensions as one MessagePack map
        return [[k["value"], v] for k, v in cur.typed(field, "map")["entries"]]'''),
        ('''            self.count(len(v))
            for key, value in v:
                self.values += ({"type": "str", "value": key}, value)''',
         '''            # BUG IGNITE-20375: the extensions as one MessagePack map
            self.values.append({"type": "map", "entries": [[{"type": "str", "value": k}, x] for k, x in v]})'''),
    ]),
    "IGNITE-28012": ("an error extension value that is an array written and read as a count plus its items, "
                     "which no reader can skip as one value", [
        ('''            key = cur.typed(f"{field}[{i}] key", "str")["value"]
            pairs.append([key, cur.next(f"{field}[{i}] value")])''',
         '''            key = cur.typed(f"{field}[{i}] key", "str")["value"]
            value = cur.next(f"{field}[{i}] value")
            if field.startswith("error.") and value["type"] == "int":   # BUG IGNITE-28012: a count, then items
                value = {"type": "array", "items": [cur.next(field) for _ in range(int(value["value"]))]}
            pairs.append([key, value])'''),
        ('''            for key, value in v:
                self.values += ({"type": "str", "value": key}, value)''',
         '''            for key, value in v:
                self.values.append({"type": "str", "value": key})
                if field.startswith("error.") and value["type"] == "array":   # BUG IGNITE-28012
                    self.count(len(value["items"]))
                    self.values += value["items"]
                else:
                    self.values.append(value)'''),
    ]),
}


def python_runner_copy(tmp_path, patches=()):
    """runners/python copied under tmp_path/runners, frames.py patched; the registry beside it, where ignite_ext
    reads it (../../schema/registry.json)."""
    runners = tmp_path / "runners"
    shutil.copytree(REPO / "runners" / "python", runners / "python",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "schema").mkdir()
    shutil.copy(REPO / "schema" / "registry.json", tmp_path / "schema" / "registry.json")
    frames = runners / "python" / "frames.py"
    text = frames.read_text()
    for old, new in patches:
        assert text.count(old) == 1, f"frames.py no longer holds the text this bug replaces:\n{old}"
        text = text.replace(old, new)
    frames.write_text(text)
    return runners


def frame_run(tmp_path, patches=()):
    runners = python_runner_copy(tmp_path, patches)
    done = run(tmp_path, "--family", FAMILIES, "--no-matrix", runners="python", commands=[],
               corpus=REPO / "vectors", runners_dir=runners)
    assert done.report is not None, done.stderr
    frame_records = [v for v in done.report["verdicts"] if v["vector"].startswith("frame")]
    assert frame_records, "no frame vector was run: is the frame corpus in vectors/?"
    return done, frame_records


def failing(records):
    return sorted({(r["vector"], r["op"]) for r in records if r["verdict"] not in ("pass", "info", "xfail")})


def test_the_python_runner_passes_every_frame_vector(tmp_path):
    done, records = frame_run(tmp_path)
    assert not failing(records), failing(records)[:20]
    assert done.code == 0, done.stdout[-2000:]
    claimed = {r["verdict"] for r in records}
    assert claimed <= {"pass", "info", "xfail"}, claimed      # nothing unclaimed: the runner claims format frame


def vectors_naming(issue):
    """The ids of frame vectors whose description names the issue."""
    ids = set()
    for path in (REPO / "vectors").glob("frame*.json"):
        doc = json.loads(path.read_text())
        for v in doc["vectors"]:
            if issue in v.get("description", ""):
                ids.add(v["id"])
    return ids


@pytest.mark.parametrize("issue", sorted(BUGS))
def test_the_corpus_fails_a_runner_with_the_bug(tmp_path, issue):
    what, patches = BUGS[issue]
    done, records = frame_run(tmp_path, patches)
    caught = failing(records)
    assert caught, f"no frame vector catches {issue} ({what})"
    assert done.code == 1
    print(f"{issue} ({what}): caught by {len(caught)} ops, e.g. " +
          ", ".join(f"{vid} {op}" for vid, op in caught[:8]))
    # The vectors written for this bug (their description names the issue) are among those that catch it.
    named = vectors_naming(issue)
    assert named, f"no frame vector's description names {issue}"
    catching = sorted(named & {vid for vid, _ in caught})
    assert catching, f"the vectors naming {issue} ({sorted(named)}) do not catch it; caught: {caught[:10]}"
    print(f"{issue}: caught by the vectors naming it: {', '.join(catching)}")
