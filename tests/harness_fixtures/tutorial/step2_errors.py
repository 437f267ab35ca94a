"""Tutorial step 2: reject bad input with an error class, and decode str (with UTF-8 validation)."""

import json
import sys


class Rejected(Exception):
    def __init__(self, error_class, message):
        super().__init__(message)
        self.error_class = error_class


class NotYet(Exception):
    pass


def take(data, pos, n):
    if pos + n > len(data):            # check before reading: never trust a declared length
        raise Rejected("malformed.truncated", f"need {n} bytes at {pos}, have {len(data) - pos}")
    return data[pos:pos + n]


def read_value(data, pos):
    b = data[pos]
    if b == 0xC0:
        return {"type": "nil"}, pos + 1
    if b == 0xC1:
        raise Rejected("malformed.reserved", "0xc1 is never used")
    if b in (0xC2, 0xC3):
        return {"type": "bool", "value": b == 0xC3}, pos + 1
    if b <= 0x7F or b >= 0xE0:
        return {"type": "int", "value": str(b if b <= 0x7F else b - 256)}, pos + 1
    if 0xCC <= b <= 0xD3:
        width = 1 << (b & 3)
        raw = take(data, pos + 1, width)
        return {"type": "int", "value": str(int.from_bytes(raw, "big", signed=b >= 0xD0))}, pos + 1 + width
    if 0xA0 <= b <= 0xBF:
        raw = take(data, pos + 1, b & 0x1F)
        try:
            text = raw.decode("utf-8")     # strict: overlong forms, surrogates and stray bytes raise
        except UnicodeDecodeError as e:
            raise Rejected("invalid.utf8", str(e)) from None
        return {"type": "str", "value": text}, pos + 1 + len(raw)
    raise NotYet(f"format byte {b:02x} not supported yet")


def decode(request):
    data, pos, values = bytes.fromhex(request["hex"]), 0, []
    while pos < len(data):
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
            except Rejected as e:
                reply({"id": request["id"], "error": {"class": e.error_class, "message": str(e)}})
            except NotYet as e:
                reply({"id": request["id"], "skipped": str(e)})
        elif request["cmd"] == "stop":
            return


if __name__ == "__main__":
    main()
