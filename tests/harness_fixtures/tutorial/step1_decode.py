"""Tutorial step 1: decode nil, bool and int. Anything else is answered 'skipped'."""

import json
import sys


class NotYet(Exception):
    pass


def read_value(data, pos):
    """(typed value, next position). Your runner calls its MessagePack library here."""
    b = data[pos]
    if b == 0xC0:
        return {"type": "nil"}, pos + 1
    if b in (0xC2, 0xC3):
        return {"type": "bool", "value": b == 0xC3}, pos + 1
    if b <= 0x7F or b >= 0xE0:
        return {"type": "int", "value": str(b if b <= 0x7F else b - 256)}, pos + 1
    if 0xCC <= b <= 0xD3:
        width = 1 << (b & 3)
        raw = data[pos + 1:pos + 1 + width]
        return {"type": "int", "value": str(int.from_bytes(raw, "big", signed=b >= 0xD0))}, pos + 1 + width
    raise NotYet(f"format byte {b:02x} not supported yet")


def decode(request):
    data, pos, values = bytes.fromhex(request["hex"]), 0, []
    while pos < len(data):            # a sequence of zero or more top-level values
        value, pos = read_value(data, pos)
        values.append(value)
    return {"values": values}


def reply(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main():
    for line in sys.stdin:
        request = json.loads(line)
        if request["cmd"] == "start":
            reply({"protocol": 1, "name": "tutorial", "language": "python", "library": "none",
                   "library_version": "0", "corpus_majors": [1],
                   "capabilities": {"ops": ["decode"], "eras": ["msgpack"]}})
        elif request["cmd"] == "decode":
            try:
                reply({"id": request["id"], **decode(request)})
            except NotYet as e:
                reply({"id": request["id"], "skipped": str(e)})
        elif request["cmd"] == "stop":
            return


if __name__ == "__main__":
    main()
