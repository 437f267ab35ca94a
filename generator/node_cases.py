"""Node case sources (generator/node/cases.yaml) -> node/cases.json: what the conformance node sends, when, and
what it expects of the client (spec.md 11.9, drivers/PROTOCOL.md, schema/node-cases.schema.json).

The source names messages in a short notation (`handshake: {idle_timeout: 1500}`, `response: {to: get, row: nil}`,
`error: {to: up, code: 131077, ext: [[expected-schema-ver, 2]]}`); this module turns each into the MessagePack parts
of its frame kind with frames.parts (the corpus's explicit byte builder) and the payload values with encode.canonical
and binary_tuple. A message that answers a client request cannot know the request id in advance: its request_id
part is left as a slot, `{"slot": NAME}`, and the node puts the client's id there (generator.wire.integer) and
frames the body (generator.frames.frame). Everything else the node sends is bytes from here.
"""
import json
from pathlib import Path

import yaml

from . import binary_tuple, encode, frames, ignite
from .sources import RULE_LEVEL, SourceError

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "generator" / "node" / "cases.yaml"
OUT = ROOT / "node" / "cases.json"
FORMAT = 1
OPS = {o["name"]: o["code"] for o in ignite.REGISTRY["frames"]["client_ops"]}
SERVER_OPS = {o["name"]: o["code"] for o in ignite.REGISTRY["frames"]["server_ops"]}
WORKLOADS = ("connect", "table-get", "upsert-get", "sql-select", "idle", "two-in-flight")
COLUMN_TYPE = {c["name"]: c["id"] for c in ignite.REGISTRY["column_types"]}


def i(n):
    return {"type": "int", "value": str(n)}


def s(text):
    return {"type": "str", "value": text}


def b(flag):
    return {"type": "bool", "value": bool(flag)}


NIL = {"type": "nil"}


def value(x):
    """A payload value from the source: YAML int / str / bool / null, or the typed notation (a dict with type)."""
    if isinstance(x, dict):
        return x
    if x is None:
        return NIL
    if isinstance(x, bool):
        return b(x)
    if isinstance(x, int):
        return i(x)
    if isinstance(x, str):
        return s(x)
    raise SourceError(f"cannot read payload value {x!r}")


def uuid(text):
    return {"type": "uuid", "era": "3.0", "value": text}


# --- the node's world: one table of two columns, its schemas, the rows ------------------------------------------
class World:
    def __init__(self, spec):
        self.spec = spec
        self.tables = spec["tables"]                  # name -> id
        self.columns = spec["columns"]                # [[name, type, key index, nullable]]
        self.node = spec["node_name"]

    def row_tuple(self, row):
        """The Binary Tuple of a row (a list of column values, None for NULL), by the generator's builder."""
        elements = []
        for (_name, ctype, _key, _nullable), v in zip(self.columns, row):
            elements.append({"type": "NULL"} if v is None else {"type": ctype, "value": str(v) if ctype != "STRING" else v})
        return {"type": "bin", "hex": binary_tuple.tuple_of(elements, "3.0").hex()}

    def schema_payload(self, versions):
        out = [i(len(versions))]
        for ver in versions:
            out += [i(ver), i(len(self.columns))]
            for name, ctype, key, nullable in self.columns:
                colocation = key if key >= 0 else -1
                out += [i(7), s(name), i(COLUMN_TYPE[ctype]), i(key), b(nullable), i(colocation), i(0), i(0)]
        return out

    def sql_payload(self, rows):
        out = [i(1), b(True), b(False), b(False), i(0), i(len(self.columns))]
        for name, ctype, _key, nullable in self.columns:
            out += [i(6), s(name), b(nullable), i(COLUMN_TYPE[ctype]), i(0), i(0), b(False)]
        out.append(i(len(rows)))
        out += [self.row_tuple(r) for r in rows]
        return out


# --- messages ---------------------------------------------------------------------------------------------------
def error_object(spec):
    ext = spec.get("ext")
    return {"trace_id": uuid(spec.get("trace_id", "00000000-0000-0000-0000-00000000000e")),
            "code": i(spec["code"]), "class_name": s(spec.get("class", "org.apache.ignite.lang.IgniteException")),
            "message": s(spec.get("message", "node case error")), "stack_trace": NIL,
            "extensions": NIL if ext is None else [[k, value(v)] for k, v in ext]}


def handshake(world, spec, error=None):
    d = dict(world.spec["handshake"])
    d.update(spec or {})
    fields = {"version_major": i(3), "version_minor": i(0), "version_patch": i(0)}
    if error is not None:
        fields["error"] = error_object(error)
    else:
        prod = d["product"]
        fields.update({"error": NIL, "idle_timeout": i(d["idle_timeout"]), "node_id": uuid(d["node_id"]),
                       "node_name": s(world.node), "cluster_ids": [uuid(d["cluster_id"])],
                       "cluster_name": s(d["cluster_name"]), "observable_timestamp": i(d["observable_timestamp"]),
                       "product_major": i(prod[0]), "product_minor": i(prod[1]), "product_maintenance": i(prod[2]),
                       "product_patch": NIL, "product_pre_release": NIL,
                       "features": sorted(set(frames.FEATURE_BIT.get(f, f) for f in d["features"])),
                       "extensions": [[k, value(v)] for k, v in d["extensions"]]})
    body = b"".join(p for _path, p in frames.parts("handshake-response", fields))
    magic = bytes.fromhex(d["magic"]) if "magic" in d else None
    return {"kind": "handshake-response", "hex": frames.frame("handshake-response", body, magic=magic).hex()}


def response(world, spec, op_hint=None):
    """A response (or error, notification, server op) to the request bound as spec['to'] (or a fixed id)."""
    flags = spec.get("flags", 0)
    fields = {"flags": None, "observable_timestamp": i(spec.get("observable_timestamp",
                                                                 world.spec["response_observable_timestamp"]))}
    if "partition_ts" in spec:
        flags |= frames.FLAG["PARTITION_ASSIGNMENT"]
        fields["partition_assignment_timestamp"] = i(spec["partition_ts"])
    if spec.get("notification"):
        flags |= frames.FLAG["NOTIFICATION"]
    kind, payload = "response", []
    if "error" in spec:
        flags |= frames.FLAG["ERROR"]
        fields["error"] = error_object(spec["error"])
    elif "server_op" in spec:
        flags |= frames.FLAG["SERVER_OP"]
        fields["server_op"] = i(SERVER_OPS[spec["server_op"]])
    if "error" not in spec:
        if "table" in spec:
            name = spec["table"]
            payload = [NIL] if name is None else [i(world.tables[name]), s(f"PUBLIC.{name}")]
        elif "schemas" in spec:
            payload = world.schema_payload(spec["schemas"])
        elif "assignment" in spec:
            payload = [i(1), b(True), i(spec["assignment"]), s(world.node)]
        elif "upsert" in spec:
            kind, fields["schema_version"] = "tuple-upsert-response", i(spec["upsert"])
        elif "row" in spec:
            kind = "tuple-get-response"
            fields["schema_version"] = i(spec.get("schema_version", 1))
            fields["tuple"] = NIL if spec["row"] is None else world.row_tuple(spec["row"])
        elif "rows" in spec:
            payload = world.sql_payload(spec["rows"])
        elif "payload" in spec:
            payload = [value(v) for v in spec["payload"]]
        if kind == "response":
            fields["payload"] = payload
    fields["flags"] = i(flags | spec.get("extra_flags", 0))
    slot = spec.get("to")
    fields["request_id"] = i(0 if slot is not None else spec["id"])
    out = []
    for path, data in frames.parts(kind, fields):
        if path == "request_id" and slot is not None:
            out.append({"slot": slot})
        elif out and "hex" in out[-1]:
            out[-1]["hex"] += data.hex()
        else:
            out.append({"hex": data.hex()})
    if slot is None:
        body = bytes.fromhex("".join(p["hex"] for p in out))
        return {"kind": kind, "hex": frames.frame(kind, body).hex()}
    return {"kind": kind, "body": out}


def message(world, spec):
    if not isinstance(spec, dict) or len(spec) != 1:
        raise SourceError(f"a message is one of handshake / handshake-error / raw / response: {spec!r}")
    (what, arg), = spec.items()
    if what == "handshake":
        return handshake(world, arg)
    if what == "handshake-error":
        return handshake(world, None, error=arg)
    if what == "raw":
        return {"kind": "raw", "hex": arg.replace(" ", "").lower()}
    if what == "response":
        return response(world, arg)
    raise SourceError(f"unknown message {what!r}")


# --- steps --------------------------------------------------------------------------------------------------------
def op_code(name):
    if name not in OPS:
        raise SourceError(f"unknown client op {name!r}")
    return OPS[name]


def step(world, spec, rel):
    spec = dict(spec)
    if "send" in spec:
        msgs = spec.pop("send")
        msgs = msgs if isinstance(msgs, list) else [msgs]
        out = {"send": [message(world, m) for m in msgs]}
        for k in ("split", "delay_ms", "gap_ms", "cut"):
            if k in spec:
                out[k] = spec.pop(k)
    elif "read" in spec:
        what = spec.pop("read")
        out = {"read": "handshake-request"} if what == "handshake-request" else {"read": op_code(what)}
        for k in ("as", "within_ms", "fields", "by_name", "at_least", "if_feature"):
            if k in spec:
                out[k] = spec.pop(k)
        if "before_op" in spec:
            out["before_op"] = op_code(spec.pop("before_op"))
    elif "auto" in spec:
        out = {"auto": auto(world, spec.pop("auto"))}
    else:
        (what, arg), = [(k, spec.pop(k)) for k in list(spec)[:1]]
        if what not in ("quiet_ms", "idle_ms", "close", "expect_close"):
            raise SourceError(f"{rel}: unknown step {what!r}")
        out = {what: arg}
    if spec:
        raise SourceError(f"{rel}: step has unknown keys {sorted(spec)}")
    return out


def auto(world, spec):
    """{op code: the answer the node gives to every request of that op the script does not read itself}."""
    out = {}
    for op, m in spec.items():
        m = dict(m)
        split = m.pop("split", None)
        out[str(op_code(op))] = dict(response(world, dict(m, to="*")), **({"split": split} if split else {}))
    return out


def build(source, rel="generator/node/cases.yaml"):
    default_auto = auto(World(source["world"]), source["auto"])
    cases, seen = [], set()
    for c in source["cases"]:
        cid = c["id"]
        if cid in seen:
            raise SourceError(f"{rel}: case {cid} twice")
        seen.add(cid)
        rules = c["rules"]
        unknown = [r for r in rules if r not in RULE_LEVEL]
        if unknown:
            raise SourceError(f"{rel}: {cid}: rules not in schema/registry.json: {unknown}")
        workload = c["workload"]
        wname = workload if isinstance(workload, str) else workload["name"]
        if wname not in WORKLOADS:
            raise SourceError(f"{rel}: {cid}: unknown workload {wname!r}")
        hs = dict(source["world"]["handshake"])
        hs.update(c.get("handshake") or {})
        world = World(dict(source["world"], handshake=hs))     # `handshake: {}` in the script says the case's
        case = {"id": cid, "rules": rules, "level": RULE_LEVEL[rules[0]], "description": c["description"].strip(),
                "workload": {"name": wname, **({} if isinstance(workload, str) else
                                               {k: v for k, v in workload.items() if k != "name"})},
                "timeout_ms": c.get("timeout_ms", source["timeout_ms"]),
                "idle_timeout_ms": hs["idle_timeout"],
                "features": sorted(f for f in hs["features"] if isinstance(f, str)),
                "observable_timestamp": hs["observable_timestamp"],
                "auto": dict(default_auto, **auto(world, c.get("auto", {}))),
                "script": [step(world, st, rel) for st in c["script"]],
                "outcome": c["outcome"]}
        for k in ("max_frames", "requires_op", "requires_feature", "report_within_ms"):
            if k in c:
                case[k] = c[k]
        if "requires_op" in case:
            case["requires_op"] = op_code(case["requires_op"])
        cases.append(case)
    return {"format": FORMAT, "corpus_version": ignite.REGISTRY["corpus_version"],
            "source": rel, "description": source["description"].strip(), "cases": cases}


def render() -> str:
    source = yaml.safe_load(SOURCE.read_text(encoding="utf-8"))
    doc = build(source)
    lines = ",\n".join("  " + json.dumps(c, ensure_ascii=False, separators=(",", ":")) for c in doc["cases"])
    head = json.dumps({k: v for k, v in doc.items() if k != "cases"}, ensure_ascii=False)[:-1]
    return f'{head}, "cases": [\n{lines}\n]}}\n'
