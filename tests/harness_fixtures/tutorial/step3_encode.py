"""Tutorial step 3: encode too, in the canonical (smallest) form. Decoding is step 2's."""

import json
import sys

from step2_errors import NotYet, Rejected, decode, reply


def write_int(n):
    if -32 <= n <= 0x7F:
        return bytes([n & 0xFF])                                   # fixint
    families = ((0xCC, 1), (0xCD, 2), (0xCE, 4), (0xCF, 8)) if n >= 0 else ((0xD0, 1), (0xD1, 2), (0xD2, 4), (0xD3, 8))
    for fmt, width in families:
        if (n < 1 << (8 * width)) if n >= 0 else (n >= -(1 << (8 * width - 1))):
            return bytes([fmt]) + n.to_bytes(width, "big", signed=n < 0)
    raise Rejected("unrepresentable", f"{n} is outside int64 / uint64")


def write_value(value):
    kind = value["type"]
    if kind == "nil":
        return b"\xc0"
    if kind == "bool":
        return b"\xc3" if value["value"] else b"\xc2"
    if kind == "int":
        return write_int(int(value["value"]))
    if kind == "str" and len(value["value"].encode("utf-8")) < 32:
        raw = value["value"].encode("utf-8")
        return bytes([0xA0 | len(raw)]) + raw
    raise NotYet(f"cannot write {kind} yet")


def encode(request):
    return {"hex": b"".join(write_value(v) for v in request["values"]).hex()}


def main():
    for line in sys.stdin:
        request = json.loads(line)
        if request["cmd"] == "start":
            reply({"protocol": 1, "name": "tutorial", "language": "python", "library": "none",
                   "library_version": "0", "corpus_majors": [1],
                   "capabilities": {"ops": ["decode", "encode"], "eras": ["msgpack"]}})
        elif request["cmd"] in ("encode", "decode"):
            try:
                reply({"id": request["id"], **(encode if request["cmd"] == "encode" else decode)(request)})
            except Rejected as e:
                reply({"id": request["id"], "error": {"class": e.error_class, "message": str(e)}})
            except NotYet as e:
                reply({"id": request["id"], "skipped": str(e)})
        elif request["cmd"] == "stop":
            return


if __name__ == "__main__":
    main()
