"""Every runner's frame codec carries the registry's frame constants (schema/registry.json `frames`): the response
flag bits, the SERVER_OP_RESPONSE ERROR bit, the magic of spec rule FR-MAGIC and, where a codec lists them, the
feature names. A registry change then fails
here until each runner follows.

Grep-level on purpose: one file per runner, named as its language names things (FRAMES.md section 5), and per
constant either a definition `<NAME> = <value>` (any case, underscores optional, any prefix such as k / flag:
kPartitionAssignment = 1, PARTITION_ASSIGNMENT = 1;), or the file reads the registry's table by its key
(`response_flags`, `server_op_response_flags`), which follows a registry change by itself."""
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
REGISTRY = json.loads((ROOT / "schema" / "registry.json").read_text())
FRAMES = REGISTRY["frames"]

# The frame codec file of each runner (FRAMES.md section 5).
FRAME_FILES = {
    "python": "runners/python/frames.py",
    "js": "runners/js/frames.mjs",
    "java": "runners/java/src/Frames.java",
    "csharp": "runners/csharp/Frames.cs",
    "cpp": "runners/cpp/src/frames.cpp",
    "go": "runners/go/frames.go",
    "rust": "runners/rust/src/frames.rs",
}


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


def name_pattern(name):
    """PARTITION_ASSIGNMENT -> matches PARTITION_ASSIGNMENT, kPartitionAssignment, flagPartitionAssignment."""
    return "_?".join(re.escape(part) for part in name.split("_"))


def defines(text, name, value):
    """A line defining a constant named like name (any prefix, any case) as value (decimal, hex or 1 << n)."""
    number = rf"(?:{value}|0x0*{value:x}|1\s*<<\s*{value.bit_length() - 1})"
    line = rf"(?im)^.*\b\w*{name_pattern(name)}\w*\b[^=\n]*?(?::=|=|:)\s*(?:\(\w+\)\s*)?{number}\b"
    return re.search(line, text) is not None


def reads_registry(text, key):
    """The file reads the registry's table by key: REGISTRY.response_flags, ["response_flags"] (not a comment)."""
    return re.search(rf"""[.\[]["']?{key}\b""", text) is not None


def constants():
    """(what, registry key, name pattern, value) for every constant a runner must carry."""
    out = [(f"response flag {f['name']}", "response_flags", f["name"], f["bit_value"]) for f in FRAMES["response_flags"]]
    out += [(f"SERVER_OP_RESPONSE flag {f['name']}", "server_op_response_flags", f"SERVER_OP_RESPONSE_{f['name']}",
             f["bit_value"]) for f in FRAMES["server_op_response_flags"]]
    return out


def frame_source(runner):
    path = ROOT / FRAME_FILES[runner]
    if not path.is_file():
        pytest.fail(f"{FRAME_FILES[runner]} is missing: the {runner} runner has no frame codec on this branch "
                    f"(FRAMES.md section 5; its branch frames-{runner} adds it)")
    return path.read_text(encoding="utf-8")


@pytest.mark.parametrize("runner", sorted(FRAME_FILES))
def test_frame_codec_carries_the_registry_flags(runner):
    text = frame_source(runner)
    missing = [f"{what} = {value}" for what, key, name, value in constants()
               if not defines(text, name, value) and not reads_registry(text, key)]
    assert not missing, (f"{FRAME_FILES[runner]} does not define (or read from schema/registry.json frames) "
                         f"{', '.join(missing)}")


@pytest.mark.parametrize("runner", sorted(FRAME_FILES))
def test_frame_codec_carries_the_magic(runner):
    text = frame_source(runner)
    magic = registry_magic()
    assert any(re.search(p, text, re.I) for p in magic_patterns(magic)), (
        f"{FRAME_FILES[runner]} does not write the magic {magic.hex()} ('{magic.decode()}') of FR-MAGIC")


def test_the_patterns_tell_a_wrong_value_from_the_right_one():
    """The check can fail: a flag defined with another value, or under another name, is not found."""
    assert defines("    static final int SERVER_OP = 8;", "SERVER_OP", 8)
    assert defines("constexpr std::uint64_t kPartitionAssignment = 1;  // response_flags", "PARTITION_ASSIGNMENT", 1)
    assert defines("\tflagServerOp            = 8", "SERVER_OP", 8)
    assert defines("pub const SERVER_OP: u64 = 1 << 3;", "SERVER_OP", 8)
    assert defines("const int ServerOpResponseError = 4;", "SERVER_OP_RESPONSE_ERROR", 4)
    assert not defines("    static final int SERVER_OP = 16;", "SERVER_OP", 8)
    assert not defines("    static final int SERVER_OP = 80;", "SERVER_OP", 8)
    assert not defines("    static final int NOTIFY = 2;", "NOTIFICATION", 2)
    assert reads_registry('RESPONSE_FLAGS = bitValues(REGISTRY.response_flags);', "response_flags")
    assert reads_registry('x = REGISTRY["frames"]["server_op_response_flags"]', "server_op_response_flags")
    assert not reads_registry("kError = 4;  // response_flags", "response_flags")
    assert not reads_registry('REGISTRY.server_op_response_flags', "response_flags")
    assert registry_magic() == b"IGNI"
    assert re.search(magic_patterns(b"IGNI")[1], "{0x49, 0x47, 0x4e, 0x49}", re.I)
    assert not any(re.search(p, "{0x49, 0x47, 0x4e, 0x4a}", re.I) for p in magic_patterns(b"IGNI"))



# The features that bring fields (sql-execute-request's three; the tx forms' two, spec 11.6): every frame codec
# names these five.
SQL_FEATURES = {"SQL_DIRECT_TX_MAPPING", "SQL_MULTISTATEMENT_SUPPORT", "SQL_PARTITION_AWARENESS", "TX_PIGGYBACK",
                "TX_DIRECT_MAPPING"}


def missing_features(text):
    """Encoders refuse a negotiated feature name the registry does not have (frame.fields), so a codec either reads
    the names from the registry or lists them all: a file naming a feature beyond the five layout ones lists them,
    and the names of the registry it lacks are returned."""
    names = {f["name"] for f in FRAMES["features"]}
    listed = set(re.findall(r'"([A-Z][A-Z0-9_]+)"', text)) & names
    return sorted(names - listed) if listed - SQL_FEATURES else []


@pytest.mark.parametrize("runner", sorted(FRAME_FILES))
def test_a_listed_feature_table_is_the_registry_s(runner):
    missing = missing_features((ROOT / FRAME_FILES[runner]).read_text())
    assert not missing, f"{FRAME_FILES[runner]} lists the feature names but lacks {missing} of the registry"


def test_a_feature_table_short_of_one_name_is_caught():
    text = (ROOT / FRAME_FILES["cpp"]).read_text()
    assert missing_features(text.replace('"SQL_UPDATE_COUNTERS_2"', '"RENAMED"')) == ["SQL_UPDATE_COUNTERS_2"]
