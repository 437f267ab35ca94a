"""Tutorial step 7: frames (spec.md section 11). A handshake request and a plain request, read and written as named
fields on top of steps 2 and 3's value codec; the other message kinds are left for later (skipped)."""

import json
import sys

from step2_errors import NotYet, Rejected, read_value, reply, take
from step3_encode import write_int, write_value

MAGIC = bytes.fromhex("49474e49")   # 'IGNI', before both handshake messages


def read_frame(data, magic):
    """The frame's MessagePack values (steps 1-4 of spec.md 11.1), after the magic and the length."""
    pos = 0
    if magic:
        if take(data, 0, 4) != MAGIC:
            raise Rejected("frame.magic", f"expected 49474e49, got {data[:4].hex()}")
        pos = 4
    length = int.from_bytes(take(data, pos, 4), "big", signed=True)
    if length < 0:
        raise Rejected("frame.length", f"negative length {length}")
    body, values, at = take(data, pos + 4, length), [], 0
    while at < len(body):
        value, at = (read_bin if 0xC4 <= body[at] <= 0xC6 else read_value)(body, at)   # step 2 has no bin yet
        values.append(value)
    if pos + 4 + length < len(data):
        raise Rejected("frame.trailing", "bytes after the frame")
    return values


def read_bin(data, pos):
    width = 1 << (data[pos] - 0xC4)                  # bin 8, 16, 32: a 1-, 2- or 4-byte length
    size = int.from_bytes(take(data, pos + 1, width), "big")
    return {"type": "bin", "hex": take(data, pos + 1 + width, size).hex()}, pos + 1 + width + size


def field(values, wanted=None):
    """The next value, of type `wanted` if given: running out is truncation, another type a field-type error."""
    if not values:
        raise Rejected("malformed.truncated", "the frame ends before its last field")
    value = values.pop(0)
    if wanted and value["type"] != wanted:
        raise Rejected("frame.field-type", f"expected {wanted}, got {value['type']}")
    return value


def bits_of(hex_text):
    data = bytes.fromhex(hex_text)
    return [i for i in range(len(data) * 8) if data[i // 8] >> (i % 8) & 1]   # least significant bit first


def decode(request):
    if request["frame"] not in ("request", "handshake-request"):
        raise NotYet(f"frame {request['frame']} not supported yet")
    values = read_frame(bytes.fromhex(request["hex"]), request["frame"] == "handshake-request")
    if request["frame"] == "request":
        return {"fields": {"op": field(values, "int"), "request_id": field(values, "int"), "payload": values}}
    fields = {name: field(values, "int") for name in ("version_major", "version_minor", "version_patch", "client_code")}
    fields["features"] = bits_of(field(values, "bin")["hex"])
    count = int(field(values, "int")["value"])
    if count < 0:
        raise Rejected("frame.field-type", f"negative extension count {count}")
    fields["extensions"] = [[field(values, "str")["value"], field(values)] for _ in range(count)]
    if values:
        raise Rejected("frame.trailing", f"{len(values)} values after the extensions")
    return {"fields": fields}


def bin_of(bits):
    data = bytearray((max(bits) // 8 + 1) if bits else 0)   # no trailing zero bytes
    for i in bits:
        data[i // 8] |= 1 << (i % 8)
    return bytes([0xC4, len(data)]) + data


HANDSHAKE_FIELDS = {"version_major", "version_minor", "version_patch", "client_code", "features", "extensions"}


def encode(request):
    fields, kind = request["fields"], request["frame"]
    wanted = {"request": {"op", "request_id", "payload"}, "handshake-request": HANDSHAKE_FIELDS}.get(kind)
    if wanted is None:
        raise NotYet(f"frame {kind} not supported yet")
    if set(fields) != wanted:
        raise Rejected("frame.fields", f"a {kind} has {sorted(wanted)}, not {sorted(fields)}")
    if kind == "request":
        body = b"".join(write_value(v) for v in [fields["op"], fields["request_id"], *fields["payload"]])
        return {"hex": (len(body).to_bytes(4, "big") + body).hex()}
    body = b"".join(write_value(fields[name]) for name in ("version_major", "version_minor", "version_patch", "client_code"))
    body += bin_of(fields["features"]) + write_int(len(fields["extensions"]))
    body += b"".join(write_value({"type": "str", "value": key}) + write_value(value) for key, value in fields["extensions"])
    return {"hex": (MAGIC + len(body).to_bytes(4, "big") + body).hex()}


def main():
    for line in sys.stdin:
        request = json.loads(line)
        if request["cmd"] == "start":
            reply({"protocol": 1, "name": "tutorial", "language": "python", "library": "none",
                   "library_version": "0", "corpus_majors": [1],
                   "capabilities": {"ops": ["decode", "encode"], "eras": ["3.0"], "formats": ["frame"]}})
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
