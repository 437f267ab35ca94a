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


# ---------------------------------------------------------------- frame_layouts (the layouts every runner walks)
LAYOUTS = json.loads((ROOT / "schema" / "registry.json").read_text())["frame_layouts"]


def layout_problems(layouts, frames):
    """What in the layouts the registry's constants or the protocol schema do not back."""
    out = []
    bits = {f["bit_value"] for f in frames["response_flags"] + frames["server_op_response_flags"]}
    features = {f["name"] for f in frames["features"]}
    tx_ids = {t["id"] for t in frames["tx_ids"]}
    for m in layouts["messages"] + [{"kind": "error_object", "fields": layouts["error_object"]}]:
        seen = []
        for f in m["fields"]:
            when = f.get("when", {})
            where = f"{m['kind']}.{f['name']}"
            if "flags" in when:
                if "flags" not in seen:
                    out.append(f"{where}: a flags condition before the flags field")
                mask = when["flags"]["mask"]
                if any(mask & (1 << i) and (1 << i) not in bits for i in range(mask.bit_length())):
                    out.append(f"{where}: mask {mask} has a bit no flags table names")
                if when["flags"]["equals"] & ~mask:
                    out.append(f"{where}: equals has bits outside the mask")
            for key in ("nil", "not_nil_or_zero"):
                if key in when and when[key] not in seen:
                    out.append(f"{where}: {key} names {when[key]!r}, not an earlier field")
            feature = when.get("feature") or when.get("tx_form", {}).get("feature")
            if feature is not None and feature not in features:
                out.append(f"{where}: feature {feature} is not in frames.features")
            if "tx_form" in when and (when["tx_form"]["tx"] not in tx_ids or "tx" not in seen):
                out.append(f"{where}: tx_form needs an earlier tx field and a tx of frames.tx_ids")
            if f["name"] in seen and "tx_form" not in when:
                out.append(f"{where}: named twice (only exclusive tx forms may repeat a name)")
            seen.append(f["name"])
    return out


def test_frame_layouts_are_backed_by_the_registry_and_the_protocol():
    assert layout_problems(LAYOUTS, FRAMES) == []
    kinds = json.loads((ROOT / "schema" / "protocol.schema.json").read_text())["$defs"]["frame"]["enum"]
    assert [m["kind"] for m in LAYOUTS["messages"]] == kinds, "one layout per frame kind of protocol.schema.json"


def test_a_layout_the_registry_does_not_back_is_caught():
    broken = json.loads(json.dumps(LAYOUTS))
    fields = next(m for m in broken["messages"] if m["kind"] == "response")["fields"]
    fields[2]["when"] = {"flags": {"mask": 16, "equals": 16}}          # no flags table has bit 16
    fields[4]["when"] = {"feature": "NO_SUCH_FEATURE"}
    fields.insert(0, dict(fields[3], when={"nil": "later"}))
    problems = layout_problems(broken, FRAMES)
    assert len(problems) == 4, problems
