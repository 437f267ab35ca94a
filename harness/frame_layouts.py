"""The frame message layouts (spec.md 11, FRAMES.md section 3) as the harness reads them: which field each
MessagePack value of a frame is, for diagnoses and `python3 -m harness annotate --format frame`.

The layouts are the registry's (schema/registry.json frame_layouts), the ones every runner walks; the generator
keeps its own copy, written from upstream (generator/frames.py), and the frame vectors pin the two to the same
bytes, so a layout the harness annotates with is one the corpus has checked."""

from harness import schemas

ERA = "3.0"                            # every frame: UUIDs are ext 3 with little-endian halves
MAGIC = bytes.fromhex("49474e49")      # 'IGNI' (spec FR-MAGIC)
LENGTH_BYTES = 4                       # big-endian signed (FR-LENGTH)
# FR-INT-RANGE: an `int` field is Java's unpackInt, a `long` field unpackLong
RANGES = {"int": (-(2 ** 31), 2 ** 31 - 1), "long": (-(2 ** 63), 2 ** 63 - 1)}


def _ext_lengths():
    """{ext code: (fixed payload length or None, minimum length)} of the Ignite types era 3.0 reads (registry)."""
    registry = schemas.load("registry.json")
    layouts = {lay["id"]: lay for lay in registry["layouts"]}
    out = {}
    for ext in registry["ext_types"]:
        lay = layouts.get(ext["layouts"].get(ERA))
        if lay is not None:
            out[ext["code"]] = (lay.get("length"), lay.get("min_length", lay.get("length", 0)))
    return out


EXT_LENGTHS = _ext_lengths()

FRAME_LAYOUTS = schemas.load("registry.json")["frame_layouts"]


def _fields(fields):
    """(name, type, condition or None) in wire order, from the registry's fields."""
    return [(f["name"], f["type"], f.get("when")) for f in fields]


ERROR_OBJECT = _fields(FRAME_LAYOUTS["error_object"])
LAYOUTS = {m["kind"]: _fields(m["fields"]) for m in FRAME_LAYOUTS["messages"]}
HANDSHAKES = frozenset(m["kind"] for m in FRAME_LAYOUTS["messages"] if m["magic"])
KINDS = tuple(LAYOUTS)


def present(when, seen, features):
    """Whether a field with condition `when` (registry $defs/frame_condition) is present, given seen = {field:
    (type, int value or None)} of the fields read so far (the kind of the MessagePack value, and its value when an
    int). Lenient where a runner refuses (a mistyped flags reads as 0): the harness annotates, it does not judge."""
    if when is None:
        return True
    if "feature" in when:
        return when["feature"] in features
    if "tx_form" in when:
        kind, number = seen.get("tx", (None, None))
        return when["tx_form"]["feature"] in features and kind == "int" and number == when["tx_form"]["tx"]
    if "nil" in when:
        return seen.get(when["nil"], (None, None))[0] == "nil"
    if "not_nil_or_zero" in when:                       # spec 11.7: a count of 0 has no tuple (Java writes none)
        kind, number = seen.get(when["not_nil_or_zero"], (None, None))
        return kind != "nil" and not (kind == "int" and number == 0)
    flags = seen.get("flags", (None, None))[1] or 0
    return flags & when["flags"]["mask"] == when["flags"]["equals"]
