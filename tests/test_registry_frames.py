"""The registry's frame-layer constants (schema/registry.json `frames`) and the tool that reads them from Ignite.

The schema itself is checked with the rest of the registry (test_corpus.py); here: what a schema cannot say.
"""
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FRAMES = json.loads((ROOT / "schema" / "registry.json").read_text())["frames"]
SECTIONS = [k for k in FRAMES if k not in ("description", "releases")]
VALUE_KEYS = ("code", "bit", "bit_value", "key", "id")


def value_key(entry):
    return next(k for k in VALUE_KEYS if k in entry)


@pytest.mark.parametrize("section", SECTIONS)
def test_one_value_key_per_section_and_no_value_named_twice(section):
    entries = FRAMES[section]
    assert len({value_key(e) for e in entries}) == 1, f"{section}: entries use different value keys"
    key = value_key(entries[0])
    live = [e[key] for e in entries if "removed" not in e]
    assert len(live) == len(set(live)), f"{section}: a {key} names two live constants"
    names = [e["name"] for e in entries if "removed" not in e]
    assert len(names) == len(set(names)), f"{section}: a name is declared twice"


@pytest.mark.parametrize("section", SECTIONS)
def test_since_and_removed_name_releases_in_order(section):
    order = [r["id"] for r in FRAMES["releases"]]
    for e in FRAMES[section]:
        assert e["since"] in order, f"{section} {e['name']}: since {e['since']} is no release"
        if "removed" in e:
            assert order.index(e["removed"]) > order.index(e["since"]), f"{section} {e['name']}"


def test_response_flags_are_single_bits():
    for section in ("response_flags", "server_op_response_flags"):
        for e in FRAMES[section]:
            assert e["bit_value"] & (e["bit_value"] - 1) == 0, f"{section} {e['name']} = {e['bit_value']}"


def _commit(repo, files, tag):
    for path, text in files.items():
        p = repo / path
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    run = lambda *a: subprocess.run(["git", "-C", str(repo), *a], check=True, capture_output=True)  # noqa: E731
    run("add", "-A")
    run("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", tag, "--date", "2025-01-02T00:00:00")
    run("tag", tag)


def _tool(repo, *refs):
    return subprocess.run([sys.executable, str(ROOT / "tools" / "ignite_frame_registry.py"), "--ignite", str(repo),
                           "--refs", *refs], capture_output=True, text=True)


def test_tool_dates_each_constant_by_the_first_release_that_has_it(tmp_path):
    """Two synthetic releases: an op added, one removed, a feature file that moved between modules."""
    proto = "modules/client-common/src/main/java/proto/"
    first = {proto + "ClientOp.java": "public static final int HEARTBEAT = 1;\npublic static final int OLD = 2;\n",
             "modules/client/src/main/java/ProtocolBitmaskFeature.java": "    USER_ATTRIBUTES(0);\n"}
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    _commit(tmp_path, first, "r1")
    (tmp_path / "modules/client/src/main/java/ProtocolBitmaskFeature.java").unlink()
    _commit(tmp_path, {proto + "ClientOp.java": "public static final int HEARTBEAT = 1;\n"
                                                "public static final int NEW_OP = 3;\n",
                       proto + "ProtocolBitmaskFeature.java": "    USER_ATTRIBUTES(0),\n    TX_PIGGYBACK(7);\n"}, "r2")
    done = _tool(tmp_path, "r1", "r2")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert [r["id"] for r in out["releases"]] == ["r1", "r2"]
    assert out["client_ops"] == [{"name": "HEARTBEAT", "code": 1, "since": "r1"},
                                 {"name": "OLD", "code": 2, "since": "r1", "removed": "r2"},
                                 {"name": "NEW_OP", "code": 3, "since": "r2"}]
    assert out["features"] == [{"name": "USER_ATTRIBUTES", "bit": 0, "since": "r1"},
                               {"name": "TX_PIGGYBACK", "bit": 7, "since": "r2"}]
    assert out["server_ops"] == []


def test_tool_refuses_a_file_whose_declarations_it_cannot_read(tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    _commit(tmp_path, {"x/ServerOp.java": "public static final long PING = 1L;\n"}, "r1")
    done = _tool(tmp_path, "r1")
    assert done.returncode != 0 and "ServerOp.java" in done.stderr and "pattern" in done.stderr
