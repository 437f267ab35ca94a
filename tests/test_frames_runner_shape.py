"""Every runner's frame codec has the one shape of runners/PROTOCOL.md ("The frame codec"): it walks the registry's
`frame_layouts` and has no layout of its own, so a field added to a message in schema/registry.json reaches all seven
runners with no code edit, and a layout cannot be right in one runner and stale in another.

Grep-level on purpose: one file per runner. It must read `frame_layouts`, and it may name no message kind and no
field of a layout as a string literal (the fields conditions read implicitly, `flags` and `tx`, and field names that
are also field types, `features`, `extensions`, `error`, `payload`, excepted). It must also write the magic of
spec rule FR-MAGIC, and a codec that lists feature names lists all of the registry's."""
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
REGISTRY = json.loads((ROOT / "schema" / "registry.json").read_text())
FRAMES = REGISTRY["frames"]
LAYOUTS = REGISTRY["frame_layouts"]

# The frame codec file of each runner.
FRAME_FILES = {
    "python": "runners/python/frames.py",
    "js": "runners/js/frames.mjs",
    "java": "runners/java/src/Frames.java",
    "csharp": "runners/csharp/Frames.cs",
    "cpp": "runners/cpp/src/frames.cpp",
    "go": "runners/go/frames.go",
    "rust": "runners/rust/src/frames.rs",
}
FIELD_TYPES = {"int", "long", "bool", "str", "bin", "uuid", "bitmask", "features", "extensions", "uuid-list", "error",
               "payload"}
CONDITION_FIELDS = {"flags", "tx"}       # read by the flags and tx_form conditions, by name


def layout_literals():
    """The strings a codec walking the registry never needs: message kinds and per-message field names."""
    kinds = {m["kind"] for m in LAYOUTS["messages"]}
    names = {f["name"] for m in LAYOUTS["messages"] for f in m["fields"]} | {f["name"] for f in LAYOUTS["error_object"]}
    return kinds | (names - FIELD_TYPES - CONDITION_FIELDS)


def own_layout(text):
    """The layout strings the source names as literals ("..." or '...'), sorted."""
    literals = set(re.findall(r'"([a-z][a-z0-9_-]*)"', text)) | set(re.findall(r"'([a-z][a-z0-9_-]*)'", text))
    return sorted(literals & layout_literals())


def frame_source(runner):
    """The codec's source, without a unit-test module kept in the same file (Rust's `#[cfg(test)] mod tests`)."""
    return (ROOT / FRAME_FILES[runner]).read_text(encoding="utf-8").split("#[cfg(test)]")[0]


@pytest.mark.parametrize("runner", sorted(FRAME_FILES))
def test_frame_codec_walks_the_registry_layouts(runner):
    text = frame_source(runner)
    assert "frame_layouts" in text, f"{FRAME_FILES[runner]} does not read the registry's frame_layouts"
    named = own_layout(text)
    assert not named, (f"{FRAME_FILES[runner]} names message kinds or layout fields of its own: {named}; the layouts "
                       "are the registry's (runners/PROTOCOL.md, 'The frame codec')")


def test_a_codec_with_a_layout_of_its_own_is_caught():
    assert own_layout('f.tuple = c.of("tuple", "bin");') == ["tuple"]
    assert own_layout("KINDS = {'tuple-get-response': read_get}") == ["tuple-get-response"]
    assert own_layout('case "features": return readFeatures(c, name); if (f.flags) {} "tx"') == []


def registry_magic():
    """The magic's 4 bytes as spec rule FR-MAGIC states them ('... the 4 bytes 49 47 4E 49 ...')."""
    title = next(r["title"] for r in REGISTRY["rules"] if r["id"] == "FR-MAGIC")
    found = re.search(r"((?:[0-9A-Fa-f]{2} ){3}[0-9A-Fa-f]{2})", title)
    assert found, f"FR-MAGIC names no 4 bytes: {title}"
    return bytes.fromhex(found.group(1).replace(" ", ""))


def magic_patterns(magic):
    """The ways a source file writes the magic: as text, as byte literals in order, or as one hex number."""
    as_bytes = r"\W+".join(rf"0x{b:02x}" for b in magic)
    return [re.escape(f'"{magic.decode("ascii")}"'), as_bytes, rf"0x{magic.hex()}\b", rf"b'{magic.decode()}'",
            rf'b"{magic.decode()}"']


@pytest.mark.parametrize("runner", sorted(FRAME_FILES))
def test_frame_codec_carries_the_magic(runner):
    text = frame_source(runner)
    magic = registry_magic()
    assert any(re.search(p, text, re.I) for p in magic_patterns(magic)), (
        f"{FRAME_FILES[runner]} does not write the magic {magic.hex()} ('{magic.decode()}') of FR-MAGIC")


def test_the_magic_patterns_tell_a_wrong_value_from_the_right_one():
    assert registry_magic() == b"IGNI"
    assert re.search(magic_patterns(b"IGNI")[1], "{0x49, 0x47, 0x4e, 0x49}", re.I)
    assert not any(re.search(p, "{0x49, 0x47, 0x4e, 0x4a}", re.I) for p in magic_patterns(b"IGNI"))


def missing_features(text):
    """Encoders refuse a negotiated feature name the registry does not have (frame.fields), so a codec either reads
    the names from the registry or lists them all: a file naming some feature lists them, and the names of the
    registry it lacks are returned."""
    names = {f["name"] for f in FRAMES["features"]}
    listed = set(re.findall(r'"([A-Z][A-Z0-9_]+)"', text)) & names
    return sorted(names - listed) if listed else []


@pytest.mark.parametrize("runner", sorted(FRAME_FILES))
def test_a_listed_feature_table_is_the_registry_s(runner):
    missing = missing_features(frame_source(runner))
    assert not missing, f"{FRAME_FILES[runner]} lists the feature names but lacks {missing} of the registry"


def test_a_feature_table_short_of_one_name_is_caught():
    table = " ".join(f'"{f["name"]}"' for f in FRAMES["features"])
    assert missing_features(table) == []
    assert missing_features(table.replace('"SQL_UPDATE_COUNTERS_2"', '"RENAMED"')) == ["SQL_UPDATE_COUNTERS_2"]
