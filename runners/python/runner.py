#!/usr/bin/python3
"""Conformance runner for msgpack-python: protocol v1 (schema/protocol.schema.json) over stdin/stdout.

One JSON request per line in, one JSON response per line out; logs go to stderr only. Answers are flushed
before every read that could block, so the harness's window of requests is answered with one write, not one
per line, and no answer ever waits for more input.
The runner never sees expected results: it encodes or decodes what it is given and the harness judges."""
import gc
import json
import os
import sys

import msgpack

import binary_tuple
import codec
import frames
import ignite_ext
from ignite_ext import WireError

PROTOCOL = 1
CORPUS_MAJORS = [1]
# DECIMAL values of up to 100,000 digits (binary_tuple.MAX_RESCALE_DIGITS) must print as JSON integers-as-text.
sys.set_int_max_str_digits(0)


def log(*args):
    print("python-runner:", *args, file=sys.stderr, flush=True)


def start_response():
    return {
        "protocol": PROTOCOL,
        "name": "python",
        "language": f"python {sys.version.split()[0]}",
        "library": "msgpack-python",
        "library_version": ".".join(map(str, msgpack.version)),
        "corpus_majors": CORPUS_MAJORS,
        "capabilities": {"ops": ["encode", "decode"], "eras": ignite_ext.ERAS,
                         "formats": ["msgpack", "binary-tuple", "object", "object-array", "table-row", "collection", "compute-arg",
                                     "batched-arguments", "frame"]},
    }


KNOWN_ERAS = frozenset(ignite_ext.ERAS)


def handle(req):
    """The response's one field besides its id, as (name, value), for an encode or decode request."""
    cmd, era = req["cmd"], req["era"]
    if era not in KNOWN_ERAS:
        return "skipped", f"unknown era {era!r}"
    fmt = req.get("format", "msgpack")
    if fmt == "frame":     # one Ignite client message (spec.md 11): named fields <-> bytes
        if cmd == "encode":
            return "hex", frames.encode(req["frame"], req["fields"], req.get("features", ())).hex()
        return "fields", frames.decode(req["frame"], bytes.fromhex(req["hex"]), req.get("features", ()))
    if fmt != "msgpack":   # Binary Tuple formats (spec 6.2)
        if cmd == "encode":
            return "hex", binary_tuple.encode(fmt, req["values"], era, req.get("columns")).hex()
        return "values", binary_tuple.decode(fmt, bytes.fromhex(req["hex"]), era, req.get("columns", []))
    if cmd == "encode":
        return "hex", codec.encode(req["values"]).hex()
    if cmd == "decode":
        return "values", codec.decode(bytes.fromhex(req["hex"]), era)
    return "skipped", f"unknown command {cmd!r}"


def answer(req):
    """Exactly one response for a request that carries an id; library and codec errors become responses."""
    try:
        name, value = handle(req)
    except WireError as e:
        name, value = "error", {"class": e.args[0], "message": e.args[1]}   # WireError(cls, message)
    except NotImplementedError as e:
        name, value = "skipped", str(e)
    except Exception as e:  # a runner bug, not a verdict on the input: say so honestly (a skip fails unless listed)
        import traceback   # only here: a run without a runner bug does not pay for the import (2 ms)
        log(f"request {req.get('id')}: internal error\n" + traceback.format_exc())
        name, value = "skipped", f"internal error: {type(e).__name__}: {e}"
    return {"id": req["id"], name: value}


# ASCII only: json escapes the rest. An answer is a tree (the shared nil and bool objects of codec are leaves),
# so the encoder's search for reference cycles, a third of its time on large answers, is left out.
_ENCODER = json.JSONEncoder(separators=(",", ":"), check_circular=False)
# The C encoder that _ENCODER.encode makes anew for every call (json.encoder.JSONEncoder.iterencode), made once
# here: half the cost of writing a small answer. Called as encode_chunks(answer, 0), it returns the answer's
# text as a list of strings.
encode_chunks = json.encoder.c_make_encoder(
    None, _ENCODER.default, json.encoder.encode_basestring_ascii, _ENCODER.indent, _ENCODER.key_separator,
    _ENCODER.item_separator, _ENCODER.sort_keys, _ENCODER.skipkeys, _ENCODER.allow_nan)
_DECODER = json.JSONDecoder()


def parse(text):
    """json.loads(text). A line that is exactly one JSON value, as every line the harness sends is, takes one
    raw_decode: json.loads' two scans for surrounding whitespace cost as much as the parse of a small request."""
    try:
        value, end = _DECODER.raw_decode(text)
        if end == len(text):
            return value
    except ValueError:
        pass
    return json.loads(text)   # whitespace around the value, or the error json.loads gives


def request_batches(fd=0, chunk=1 << 16):
    """Lists of complete request lines, each list what one read made available (a line may span many reads).
    Only the read for the next list may block, so a caller that flushes after each list never holds an answer
    while waiting for input. A line is copied once: from the read, or (spanning reads) when it is complete."""
    buf = bytearray()   # the start of a line that has not ended yet
    while True:
        data = os.read(fd, chunk)
        if not data:
            if buf:
                yield [bytes(buf)]
            return
        if data.find(b"\n") < 0:
            buf += data
            continue
        lines = data.split(b"\n")
        if buf:
            buf += lines[0]
            lines[0] = bytes(buf)
        buf = bytearray(lines.pop())
        yield lines


# Memory a large request frees is kept mapped for the next one, which would otherwise page-fault it in anew.
# pymalloc (Python's allocator for objects of up to 512 bytes) unmaps a 1 MiB arena as soon as it holds nothing:
# the values of a large request or answer fill tens of arenas (110 unmapped a pass over the corpus, 41,000 page
# faults); one block kept in each of the first ARENA_PIN_MIB MiB of arenas keeps them mapped. glibc's malloc (the
# larger blocks: a large request's line, its answer's text) maps blocks over 128 KiB afresh and trims the heap's
# top; it is told to do neither below 32 MiB (23,000 -> 17,000 page faults). Done at the first large request
# line, which would fault that memory in anyway: a run without one pays nothing.
ARENA_PIN_MIB = 32
LARGE_LINE = 1 << 16   # bytes of a request line that make it a large request
_arena_pins = []
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3   # glibc's malloc.h


def keep_memory():
    try:   # ctypes only here: it costs 1.5 ms to import
        import ctypes
        mallopt = ctypes.CDLL(None).mallopt
    except (ImportError, OSError, AttributeError):   # not glibc: its defaults
        pass
    else:
        mallopt(M_MMAP_THRESHOLD, 32 << 20)
        mallopt(M_TRIM_THRESHOLD, 1 << 30)
    blocks = [bytes(400) for _ in range(ARENA_PIN_MIB * 2300)]   # 2,300 433-byte blocks fill a MiB of arenas
    window = None
    for b in blocks:   # one block per 256 KiB of addresses (id: the address): at least one in every 1 MiB arena
        if id(b) >> 18 != window:
            window = id(b) >> 18
            _arena_pins.append(b)


def main():
    # json reads and writes a typed value two levels (object, list) per nesting level, and codec recurses once
    # per level: the default limit (1000) is below what 512 levels of legal input need. Encode has no depth
    # limit of its own, so leave room for deeper requests too.
    sys.setrecursionlimit(20000)
    # A large request or answer is some 100,000 dicts and lists, none of them in a reference cycle: collecting
    # after every 700 new containers (the default) re-walked them again and again, about a tenth of the CPU on
    # the whole corpus, and even every 50,000 cost 11 collections and 4% of it. A run makes no cycles (an
    # exception's traceback loses its frame's reference back once the except clause ends; codec has no
    # recursive closures): reference counting frees everything, so the cycle collector is off.
    gc.disable()
    out = sys.stdout.buffer
    for batch in request_batches():
        answers = []
        stop = serve(batch, answers)
        if answers:
            out.write("".join(answers).encode("ascii"))
            out.flush()
        if stop:
            break
    return 0


def serve(batch, answers):
    """Appends the answer line to each request line of batch; True once a 'stop' request was read."""
    for raw in batch:
        if not raw or raw.isspace():   # not strip(): that copies every line
            continue
        if len(raw) >= LARGE_LINE and not _arena_pins:
            keep_memory()
        try:
            req = parse(raw.decode("utf-8"))  # UnicodeDecodeError is a ValueError too
        except ValueError as e:
            log(f"unreadable request line, no id to answer ({e}): {raw[:200]!r}")
            continue
        cmd = req.get("cmd") if isinstance(req, dict) else None
        if cmd == "stop":
            return True
        if cmd == "start":
            if req.get("protocol") != PROTOCOL:
                log(f"harness speaks protocol {req.get('protocol')}, this runner {PROTOCOL}")
            answers += encode_chunks(start_response(), 0)
            answers.append("\n")
        elif isinstance(req, dict) and "id" in req:
            answers += encode_chunks(answer(req), 0)   # no copy of a large answer to add the newline
            answers.append("\n")
        else:
            log(f"request without id ignored: {raw[:200]!r}")
    return False


if __name__ == "__main__":
    sys.exit(main())
