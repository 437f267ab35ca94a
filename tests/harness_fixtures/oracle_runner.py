#!/usr/bin/python3
"""Test double for harness tests: answers every request correctly from a table built from a fixture corpus,
unless a fault-injection flag says otherwise. N counts the requests this process has received (1 = the first
after 'start'). With --once FILE a counted fault fires in one process only (FILE marks that it has fired), so
a test can check that it costs exactly one verdict; without it, every restarted process faults again."""

import argparse
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

# --hostile KIND[:SIZE]: what a runner that is not to be trusted may send (tests/test_harness_hostile.py).
HOSTILE = ("surrogate-message", "control-bytes", "huge-hex", "zero-hex", "big-message", "no-newline",
           "stderr-flood", "start-surrogate", "deep-json", "long-int")


def hostile_answer(kind, size, rid, out):
    """Writes the hostile answer to request rid on out (binary stdout); False if kind is not an answer kind."""
    if kind == "surrogate-message":
        out.write(b'{"id": %d, "error": {"class": "malformed.hostile", "message": '
                  b'"lone \\ud800 then \ud800, NUL \u0000, ESC \u001b[31m red"}}\n' % rid)
    elif kind == "control-bytes":
        out.write(b"\x00\x1b[2J\x07 not json\n")
    elif kind in ("huge-hex", "zero-hex", "big-message"):
        head = b'{"id": %d, "hex": "' % rid if kind != "big-message" else \
            b'{"id": %d, "error": {"class": "malformed.hostile", "message": "' % rid
        out.write(head)
        unit = {"huge-hex": b"ab", "zero-hex": b"00", "big-message": b"x"}[kind] * (1 << 15)
        for _ in range(size // len(unit)):
            out.write(unit)
        out.write(b'"}}\n' if kind == "big-message" else b'"}\n')
    elif kind == "no-newline":
        while True:
            out.write(b"x" * (1 << 16))
    elif kind == "deep-json":
        out.write(b"[" * size + b"]" * size + b"\n")
    elif kind == "long-int":
        out.write(b'{"id": %d, "values": [], "n": %s}\n' % (rid, b"7" * size))
    else:
        return False
    out.flush()
    return True


def hostile_request(on, n, cmd):
    """The number of the request --hostile-on ON picks, given request n is a cmd (None: not this one)."""
    if on in ("encode", "decode"):
        return n if cmd == on else None
    return int(on)


def flood_stderr():
    chunk = b"e" * (1 << 16)
    while True:
        sys.stderr.buffer.write(chunk)


def load_table(corpus):
    paths = sorted(Path(corpus).glob("*.json")) if Path(corpus).is_dir() else [Path(corpus)]
    decode, encode = {}, {}
    for p in paths:
        for v in json.loads(p.read_text())["vectors"]:
            era = v["era"]
            if v["kind"] == "value":
                encode[(era, key(v["values"]))] = (v, "encode", {"hex": v["canonical"]})
                decode[(era, v["canonical"])] = (v, "decode", {"values": v["values"]})
                for var in v["variants"]:
                    decode[(era, var["hex"])] = (v, f"decode[{var['label']}]", {"values": v["values"]})
            elif v["kind"] == "decode-reject":
                decode[(era, v["hex"])] = (v, "reject", {"error": {"class": v["error"], "message": "oracle"}})
            else:
                encode[(era, key(v["values"]))] = (v, "reject-encode",
                                                    {"error": {"class": v["error"], "message": "oracle"}})
    return decode, encode


def key(values):
    return json.dumps(values, sort_keys=True)


def broken(vector, op, answer, offset):
    """A wrong answer of the same shape: a flipped byte, a changed value, or acceptance of bad input."""
    if "hex" in answer:
        raw = bytearray.fromhex(answer["hex"])
        raw[offset if offset is not None else len(raw) - 1] ^= 0x01
        return {"hex": raw.hex()}
    if "values" in answer:
        return {"values": [{"type": "str", "value": "wrong"}] + answer["values"][1:]}
    return {"values": []} if op == "reject" else {"hex": "c0"}


def other_nan(values):
    """The same values with every NaN replaced by a different NaN of the same width."""
    if isinstance(values, list):
        return [other_nan(v) for v in values]
    if isinstance(values, dict):
        if values.get("type") == "float64" and values["bits"].startswith("7ff") and values["bits"] != "7ff0000000000000":
            return {**values, "bits": "fff0000000000abc"}
        if values.get("type") == "float32" and values["bits"].startswith("7f") and int(values["bits"], 16) > 0x7f800000:
            return {**values, "bits": "ffc00abc"}
        return {k: other_nan(v) for k, v in values.items()}
    return values


def other_nan_hex(hex_, values):
    """The bytes with each NaN of values (found by its bit pattern) replaced as other_nan does."""
    for old, new in zip(_floats(values), _floats(other_nan(values))):
        hex_ = hex_.replace(old, new)
    return hex_


def _floats(values):
    if isinstance(values, list):
        return [b for v in values for b in _floats(v)]
    if isinstance(values, dict):
        if values.get("type") in ("float32", "float64"):
            return [values["bits"]]
        return [b for v in values.values() for b in _floats(v)]
    return []


def main():
    sys.setrecursionlimit(10000)    # the deep-nesting test sends values 600 levels deep
    p = argparse.ArgumentParser()
    p.add_argument("--corpus", required=True)
    p.add_argument("--name", default="oracle")
    p.add_argument("--ops", default="encode,decode")
    p.add_argument("--eras", default="msgpack,alpha3,alpha4,alpha5,beta1,3.0")
    p.add_argument("--formats", default="msgpack")
    p.add_argument("--protocol", type=int, default=1)
    p.add_argument("--corpus-majors", default="1")
    p.add_argument("--exit-at-start", action="store_true")
    p.add_argument("--crash-after", type=int, help="exit with status 70 on request N+1")
    p.add_argument("--hang-on", type=int)
    p.add_argument("--wrong-id-on", type=int)
    p.add_argument("--non-json-on", type=int)
    p.add_argument("--garbage-on", type=int, help="print an extra non-JSON line before answer N")
    p.add_argument("--blank-garbage", action="store_true", help="--garbage-on prints a blank line first")
    p.add_argument("--bad-schema-on", type=int, help="answer N with a message the protocol schema forbids")
    p.add_argument("--once", help="marker file: counted faults fire in one process only")
    p.add_argument("--break", dest="breaks", action="append", default=[], metavar="ID:OP[:OFFSET]",
                   help="answer this vector's op wrongly (encode: flip the byte at OFFSET, default the last)")
    p.add_argument("--skip", action="append", default=[], metavar="ID:OP", help="answer 'skipped'")
    p.add_argument("--encode-as", action="append", default=[], metavar="ID:HEX", help="answer encode with HEX")
    p.add_argument("--reject-as", action="append", default=[], metavar="ID:CLASS",
                   help="answer this reject / reject-encode vector with error class CLASS")
    p.add_argument("--coarse-classes", help="comma-separated capabilities.coarse_classes to declare in 'start'")
    p.add_argument("--log", help="append every line received to this file")
    p.add_argument("--other-nan", action="store_true", help="answer NaNs with a different NaN of the same width")
    p.add_argument("--crash-on-unknown", action="store_true",
                   help="exit with status 70 on a request that is not in the table (the matrix's novel bytes)")
    p.add_argument("--hostile", metavar="KIND[:SIZE]", help=f"one of {', '.join(HOSTILE)}")
    p.add_argument("--hostile-on", help="the request that gets the hostile answer: its number N, or 'encode' or "
                   "'decode' for each of that command (default: every one)")
    p.add_argument("--spawn-child", metavar="MARKER",
                   help="start a child process (sleep, with MARKER in its arguments) that outlives nothing")
    args = p.parse_args()
    kind, _, size = (args.hostile or "").partition(":")
    size = int(size or 0)
    if kind == "stderr-flood":      # SIZE bytes before the start answer, then more all the time
        sys.stderr.buffer.write(b"e" * size)
        threading.Thread(target=flood_stderr, daemon=True).start()
    if args.spawn_child:
        subprocess.Popen(["/bin/sh", "-c", f"sleep 1000 # {args.spawn_child}"])

    if args.exit_at_start:
        print("oracle: exiting at start-up on purpose", file=sys.stderr)
        sys.exit(3)
    decode, encode = load_table(args.corpus)
    breaks = {}
    for b in args.breaks:
        vid, op, *offset = b.split(":")
        breaks[(vid, op)] = int(offset[0]) if offset else None
    skips = {tuple(s.split(":", 1)) for s in args.skip}

    def fires(n, at):
        if at is None or n != at:
            return False
        if args.once:
            if os.path.exists(args.once):
                return False
            Path(args.once).write_text("fired\n")
        return True

    def write(obj):
        sys.stdout.write(json.dumps(obj) + "\n")
        sys.stdout.flush()

    encode_as = dict(e.split(":", 1) for e in args.encode_as)
    reject_as = dict(e.split(":", 1) for e in args.reject_as)
    n = 0
    for line in sys.stdin:
        if args.log:
            with open(args.log, "a") as log:
                log.write(line)
        req = json.loads(line)
        if req["cmd"] == "start":
            if kind == "start-surrogate":
                sys.stdout.write('{"protocol": 1, "name": "%s", "language": "python\\ud800", "library": '
                                 '"lib\\u0000\\u001b[2J", "library_version": "0", "corpus_majors": [1], '
                                 '"capabilities": {"ops": ["encode", "decode"], "eras": ["msgpack"]}}\n' % args.name)
                sys.stdout.flush()
                continue
            capabilities = {"ops": args.ops.split(","), "eras": args.eras.split(","),
                            "formats": args.formats.split(",")}
            if args.coarse_classes is not None:
                capabilities["coarse_classes"] = [c for c in args.coarse_classes.split(",") if c]
            write({"protocol": args.protocol, "name": args.name, "language": "python", "library": "oracle",
                   "library_version": "0", "corpus_majors": [int(m) for m in args.corpus_majors.split(",")],
                   "capabilities": capabilities})
            continue
        if req["cmd"] == "stop":
            break
        n += 1
        if kind and (args.hostile_on is None or fires(n, hostile_request(args.hostile_on, n, req["cmd"]))) and \
                hostile_answer(kind, size, req["id"], sys.stdout.buffer):
            continue
        if args.crash_after is not None and fires(n, args.crash_after + 1):
            print(f"oracle: crashing on purpose at request {n}", file=sys.stderr)
            sys.exit(70)
        if fires(n, args.hang_on):
            print(f"oracle: hanging on purpose at request {n}", file=sys.stderr)
            sys.stderr.flush()
            sys.stdin.read()        # blocks for good: until the harness kills this process (or dies itself)
            sys.exit(0)
        table = encode if req["cmd"] == "encode" else decode
        k = (req["era"], key(req["values"]) if req["cmd"] == "encode" else req["hex"])
        if k not in table:
            if args.crash_on_unknown:
                print(f"oracle: crashing on purpose on unknown input {k[1]}", file=sys.stderr)
                sys.exit(70)
            write({"id": req["id"], "error": {"class": "invalid.unknown", "message": "not in the oracle's table"}})
            continue
        vector, op, answer = table[k]
        if (vector["id"], op) in breaks:
            answer = broken(vector, op, answer, breaks[(vector["id"], op)])
        if op in ("reject", "reject-encode") and vector["id"] in reject_as:
            answer = {"error": {"class": reject_as[vector["id"]], "message": "told to answer this class"}}
        if op == "encode" and vector["id"] in encode_as:
            answer = {"hex": encode_as[vector["id"]]}
        if (vector["id"], op) in skips:
            answer = {"skipped": "told to skip"}
        if args.other_nan:
            if "values" in answer:
                answer = {"values": other_nan(answer["values"])}
            elif "hex" in answer:
                answer = {"hex": other_nan_hex(answer["hex"], vector["values"])}
        rid = req["id"] + 1000 if fires(n, args.wrong_id_on) else req["id"]
        if fires(n, args.garbage_on):
            sys.stdout.write(("\n" if args.blank_garbage else "") + "debug: garbage on stdout\n")
        if fires(n, args.non_json_on):
            sys.stdout.write("this is not json\n")
            sys.stdout.flush()
            continue
        if fires(n, args.bad_schema_on):
            answer = {"values": "not a list"}
        write({"id": rid, **answer})


if __name__ == "__main__":
    main()
