"""The frame message layouts (spec.md 11, FRAMES.md section 3) as the harness reads them: which field each
MessagePack value of a frame is, for diagnoses and `python3 -m harness annotate --format frame`.

The harness judges runners, so it keeps its own copy of the layouts (the generator and each runner have theirs);
the frame vectors pin all of them to the same bytes. A condition is (field, test): the field is present when the
test holds for the earlier field's value; flags tests are on its int value, `nil` / `not-nil` on its type, `not-nil-or-0`
on both (neither nil nor the int 0: a value of another type counts as present, and the walk stops at it)."""

from harness import schemas

ERA = "3.0"                            # every frame: UUIDs are ext 3 with little-endian halves
HANDSHAKES = frozenset(("handshake-request", "handshake-response"))
MAGIC = bytes.fromhex("49474e49")      # 'IGNI' (spec FR-MAGIC)
LENGTH_BYTES = 4                       # big-endian signed (FR-LENGTH)
ERROR_BIT, PARTITION_ASSIGNMENT_BIT, SERVER_OP_BIT = 4, 1, 8
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

ALWAYS = None
OK = ("error", "nil")                  # handshake-response: present when the error is nil
NO_ERROR = ("flags", ("clear", ERROR_BIT))


def _fields(type_, *names, when=ALWAYS):
    return [(name, type_, when) for name in names]


ERROR_OBJECT = (_fields("uuid", "trace_id") + _fields("int", "code") + _fields("str", "class_name")
                + _fields("str?", "message", "stack_trace") + _fields("extensions?", "extensions"))
RESPONSE_HEADER = (_fields("long", "request_id") + _fields("int", "flags")
                   + _fields("long", "partition_assignment_timestamp", when=("flags", ("set", PARTITION_ASSIGNMENT_BIT)))
                   + _fields("long", "observable_timestamp") + _fields("error", "error", when=("flags", ("set", ERROR_BIT))))
PIGGYBACK, DIRECT = ("tx-form", (-1, "TX_PIGGYBACK")), ("tx-form", (0, "TX_DIRECT_MAPPING"))   # spec 11.6
TX_FORMS = (_fields("long", "tx_observable_timestamp", when=PIGGYBACK) + _fields("bool", "tx_read_only", when=PIGGYBACK)
            + _fields("long", "tx_timeout", when=PIGGYBACK) + _fields("long", "tx_enlistment_token", when=DIRECT)
            + _fields("uuid", "tx_id", when=DIRECT) + _fields("int", "tx_commit_table_id", "tx_commit_partition", when=DIRECT)
            + _fields("uuid", "tx_coordinator_id", when=DIRECT) + _fields("long", "tx_timeout", when=DIRECT))

LAYOUTS = {
    "handshake-request": _fields("int", "version_major", "version_minor", "version_patch", "client_code")
    + _fields("features", "features") + _fields("extensions", "extensions"),
    "handshake-response": _fields("int", "version_major", "version_minor", "version_patch") + _fields("error?", "error")
    + _fields("long", "idle_timeout", when=OK) + _fields("uuid", "node_id", when=OK) + _fields("str", "node_name", when=OK)
    + _fields("uuid-list", "cluster_ids", when=OK) + _fields("str", "cluster_name", when=OK)
    + _fields("long", "observable_timestamp", when=OK)
    + _fields("int", "product_major", "product_minor", "product_maintenance", when=OK)
    + _fields("int?", "product_patch", when=OK) + _fields("str?", "product_pre_release", when=OK)
    + _fields("features", "features", when=OK) + _fields("extensions", "extensions", when=OK),
    "request": _fields("int", "op") + _fields("long", "request_id") + _fields("payload", "payload"),
    "response": RESPONSE_HEADER + _fields("int", "server_op", when=("flags", ("only", SERVER_OP_BIT, ERROR_BIT)))
    + _fields("payload", "payload", when=NO_ERROR),
    "server-op-response": _fields("int", "op") + _fields("long", "request_id") + _fields("int", "flags")
    + _fields("error", "error", when=("flags", ("set", ERROR_BIT))) + _fields("payload", "payload", when=NO_ERROR),
    "tuple-request": _fields("int", "op") + _fields("long", "request_id") + _fields("int", "table_id")
    + _fields("long?", "tx") + TX_FORMS + _fields("int", "schema_version") + _fields("bitmask", "no_value_set") + _fields("bin", "tuple"),
    "tuple-upsert-response": RESPONSE_HEADER + _fields("int", "schema_version", when=NO_ERROR),
    "tuple-get-response": RESPONSE_HEADER + _fields("int", "schema_version", when=NO_ERROR)
    + _fields("bin?", "tuple", when=NO_ERROR),
    "sql-execute-request": _fields("int", "op") + _fields("long", "request_id")
    + _fields("bool", "direct_tx_mapping", when=("feature", "SQL_DIRECT_TX_MAPPING")) + _fields("long?", "tx") + TX_FORMS
    + _fields("str?", "schema") + _fields("int?", "page_size") + _fields("long?", "query_timeout", "idle_timeout")
    + _fields("str?", "time_zone") + _fields("int", "property_count") + _fields("bin", "properties")
    + _fields("int", "query_modifiers", when=("feature", "SQL_MULTISTATEMENT_SUPPORT")) + _fields("str", "statement")
    + _fields("int?", "arguments_count") + _fields("bin", "arguments_tuple", when=("arguments_count", "not-nil-or-0"))
    + _fields("long", "observable_timestamp")
    + _fields("bool", "partition_awareness", when=("feature", "SQL_PARTITION_AWARENESS")),
    "tx-piggyback-response": RESPONSE_HEADER + _fields("long", "tx_resource_id", when=NO_ERROR)
    + _fields("uuid", "tx_id", "tx_coordinator_id", when=NO_ERROR) + _fields("long", "tx_timeout", when=NO_ERROR)
    + _fields("payload", "payload", when=NO_ERROR),
    "tx-direct-response": RESPONSE_HEADER + _fields("str", "tx_primary_node", when=NO_ERROR)
    + _fields("long", "tx_enlistment_token", when=NO_ERROR) + _fields("bool", "tx_noop", when=NO_ERROR)
    + _fields("payload", "payload", when=NO_ERROR),
}
KINDS = tuple(LAYOUTS)


def present(when, seen, features):
    """Whether a field with condition `when` is present, given seen = {field: (type, int value or None)} of the
    fields read so far (the kind of the MessagePack value, and its value when an int)."""
    if when is ALWAYS:
        return True
    name, test = when
    if name == "feature":
        return test in features
    if name == "tx-form":                               # (tx value, feature): a direct-mapping form of tx
        kind, number = seen.get("tx", (None, None))
        return test[1] in features and kind == "int" and number == test[0]
    kind, number = seen.get(name, (None, None))
    if test == "nil":
        return kind == "nil"
    if test == "not-nil":
        return kind != "nil"
    if test == "not-nil-or-0":                          # spec 11.7: a count of 0 has no tuple (Java writes none)
        return kind != "nil" and not (kind == "int" and number == 0)
    flags = number or 0
    if test[0] == "set":
        return flags & test[1] != 0
    if test[0] == "clear":
        return flags & test[1] == 0
    return flags & (test[1] | test[2]) == test[1]       # ("only", bit, unless): bit set and the other clear
