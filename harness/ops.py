"""Turns vectors into operations: what is sent to a runner and what capability it needs."""

import json
import marshal
from dataclasses import dataclass, field


@dataclass(slots=True)
class Op:
    vector: dict
    name: str          # encode | decode | decode[<label>] | reject | reject-encode
    cmd: str           # the protocol command: encode | decode
    hex: str = None    # decode input
    variant: str = None
    # Derived, set once: read for every answer, verdict and journal line.
    vector_id: str = field(init=False, repr=False, compare=False)
    key: tuple = field(init=False, repr=False, compare=False)
    # Caches, made on first use (or given by harness/plan_cache.py): the request line around its id (line_parts),
    # the expected answer lines and the last request id judged (harness/judge.py).
    _line_parts: tuple = field(default=None, init=False, repr=False, compare=False)
    exact_forms: list = field(default=None, init=False, repr=False, compare=False)
    last_answer: tuple = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self):
        self.vector_id = self.vector["id"]
        self.key = (self.vector["id"], self.name)

    def request(self, request_id):
        req = {"cmd": self.cmd, "id": request_id, "era": self.vector["era"]}
        for key in REQUEST_MEMBERS:   # Binary Tuple (spec 6.2) and frame (11.1) vectors; absent for MessagePack
            if key in self.vector:
                req[key] = self.vector[key]
        if self.cmd == "encode":
            req[values_key(self.vector)] = values_of(self.vector)
        else:
            req["hex"] = self.hex
        return req

    def request_line(self, request_id):
        # Every runner gets the same request but for its id: the rest of the line is encoded once per op. The
        # line equals encode_line(self.request(request_id)): "cmd" comes first and "id" second.
        head, tail = self._line_parts or self.line_parts()
        return head + str(request_id).encode() + tail

    def line_parts(self):
        """(head, tail): the request line is head + the request id + tail. Made once per op, or given by
        set_line_parts (harness/plan_cache.py keeps them across runs)."""
        parts = self._line_parts
        if parts is None:
            head, tail = encode_line(self.request(0)).split(b',"id":0,', 1)
            parts = (head + b',"id":', b"," + tail)
            self.set_line_parts(parts)
        return parts

    def set_line_parts(self, parts):
        self._line_parts = parts


# Vector members sent as they are with every request of the vector.
REQUEST_MEMBERS = ("format", "columns", "frame", "features")


def values_key(vector):
    """Where a vector, its encode request and its decode answer hold what the bytes mean: a frame vector's message
    as named fields (spec 11.1), any other vector's typed values."""
    return "fields" if vector.get("format") == "frame" else "values"


def values_of(vector):
    """vector["values"], or a frame vector's "fields" (values_key). A prepared plan (harness/plan_cache.py) keeps each vector's values marshalled until asked
    for: a run judges nearly every answer by its line, so most are never unmarshalled (all of them up front were
    two thirds of a warm run's load, 0.04-0.1 s on one core before the first request)."""
    values = vector.get("values")
    if values is None:
        return vector["fields"]
    if type(values) is bytes:
        values = vector["values"] = marshal.loads(values)     # a concurrent first use makes an equal list
    return values


def encode_line(message):
    # Compact, UTF-8 (not \u escapes) so a runner's JSON reader sees strings as they are; one line per message.
    return (json.dumps(message, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")


def ops_for(vector):
    kind = vector["kind"]
    if kind == "value":
        ops = [Op(vector, "encode", "encode"), Op(vector, "decode", "decode", hex=vector["canonical"])]
        ops += [Op(vector, f"decode[{v['label']}]", "decode", hex=v["hex"], variant=v["label"])
                for v in vector["variants"]]
        return ops
    if kind == "decode-reject":
        return [Op(vector, "reject", "decode", hex=vector["hex"])]
    if kind == "encode-reject":
        return [Op(vector, "reject-encode", "encode")]
    raise ValueError(f"unknown vector kind {kind!r}")


def plan(vectors):
    """Every operation of the vectors, in a stable order (vectors by id, ops in their natural order)."""
    return [op for v in sorted(vectors, key=lambda v: v["id"]) for op in ops_for(v)]


def start_request(corpus_version):
    return {"cmd": "start", "protocol": 1, "corpus_version": corpus_version}


def unsupported(op, capabilities):
    """Why the runner's declared capabilities rule this op out, or None."""
    if op.cmd not in capabilities.get("ops", []):
        return f"runner does not implement '{op.cmd}'"
    if op.vector["era"] not in capabilities.get("eras", []):
        return f"runner does not support era '{op.vector['era']}'"
    fmt = op.vector.get("format", "msgpack")
    if fmt not in capabilities.get("formats", ["msgpack"]):
        return f"runner does not support format '{fmt}'"
    return None
