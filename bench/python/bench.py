"""msgpack-python benchmark: the IEP-75 cases and the Ignite.NET Person, plain API and the runner's typed path.

    /usr/bin/python3 bench/python/bench.py bench/build/cases.json [--repeat 7] [--target 0.1]

Timing: stdlib timeit (pyperf is not packaged for Debian 12). Per case: a calibration picks a loop count that
takes about --target seconds, one repeat is discarded as warm-up, then --repeat repeats; each repeat gives
ops/s, and the median, min and max go out as one JSON line per (case, op, path) on stdout.
Before anything is timed, both paths must write exactly the case's canonical bytes and read back its values.
"""
import argparse
import json
import sys
import time
import timeit
import uuid
from dataclasses import dataclass
from pathlib import Path

import msgpack

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT / "runners/python"))
import codec  # noqa: E402  (the runner's type-directed path)

SQL = "select * from cars where year > ? and seats = ?"
PRIMITIVES = [None, False, True, 2005, -1, -2147483648, 4294967296, 0.1, "John Johnson"]
UUID_EXT = 3   # Ignite's UUID ext code (3.0: msb then lsb, each little-endian)


@dataclass
class Car:
    id: int
    model: str
    year: int
    seats: int


@dataclass
class Person:
    id: int
    name: str
    data: str
    guid: uuid.UUID


CAR = Car(42, "Mazda MX-5 Miata", 2006, 2)
PERSON = Person(-2147483648, "John Johnson", "g" * 1000, uuid.UUID("6f24146a-244a-4018-a36c-3e9cf5b42082"))

packer = msgpack.Packer(use_bin_type=True, autoreset=False)


def write_seq(values):
    for v in values:
        packer.pack(v)
    out = packer.bytes()
    packer.reset()
    return out


def read_seq(data):
    u = msgpack.Unpacker(raw=False)
    u.feed(data)
    return list(u)


def uuid_payload(g):
    n = g.int
    return (n >> 64).to_bytes(8, "little") + (n & (2**64 - 1)).to_bytes(8, "little")


def uuid_hook(code, data):
    if code != UUID_EXT or len(data) != 16:
        return msgpack.ExtType(code, data)
    return uuid.UUID(int=(int.from_bytes(data[:8], "little") << 64) | int.from_bytes(data[8:], "little"))


def write_person(p):
    return packer_auto.pack([p.id, p.name, p.data, msgpack.ExtType(UUID_EXT, uuid_payload(p.guid))])


def read_person(data):
    return Person(*msgpack.unpackb(data, raw=False, ext_hook=uuid_hook))


packer_auto = msgpack.Packer(use_bin_type=True)

PLAIN = {
    "primitives": (lambda: write_seq(PRIMITIVES), read_seq, PRIMITIVES),
    "sql-request": (lambda: write_seq([SQL, [2005, 2]]), read_seq, [SQL, [2005, 2]]),
    "pojo-named": (lambda: packer_auto.pack({"id": CAR.id, "model": CAR.model, "year": CAR.year, "seats": CAR.seats}),
                   lambda d: Car(**msgpack.unpackb(d, raw=False)), CAR),
    "pojo-positional": (lambda: packer_auto.pack([CAR.id, CAR.model, CAR.year, CAR.seats]),
                        lambda d: Car(*msgpack.unpackb(d, raw=False)), CAR),
    "person": (lambda: write_person(PERSON), read_person, PERSON),
}


def measure(fn, repeat, target):
    timer = timeit.Timer(fn, timer=time.process_time)   # CPU time: other processes on a shared machine count less
    loops = 1
    while (t := timer.timeit(loops)) < target / 10:          # calibrate on a tenth of the target
        loops *= 4
    loops = max(1, int(loops * target / t))
    timer.repeat(repeat=1, number=loops)                     # warm-up
    rates = sorted(loops / t for t in timer.repeat(repeat=repeat, number=loops))
    return {"median": rates[len(rates) // 2], "min": rates[0], "max": rates[-1], "n": repeat, "loops": loops}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cases")
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--target", type=float, default=0.1, help="seconds per repeat")
    args = ap.parse_args()
    cases = json.loads(Path(args.cases).read_text(encoding="utf-8"))["cases"]
    library = f"msgpack-python {'.'.join(map(str, msgpack.version))}"
    meta = {"lang": "python", "library": library, "timer": "timeit (warm-up + repeats), CPU time"}

    for name, case in cases.items():
        canonical, era, values = bytes.fromhex(case["hex"]), case["era"], case["values"]
        write, read, native = PLAIN[name]
        # Both paths must produce the corpus bytes and read them back before they are timed.
        checks = {"plain write": write() == canonical, "plain read": read(canonical) == native,
                  "typed write": codec.encode(values) == canonical, "typed read": codec.decode(canonical, era) == values}
        bad = [k for k, ok in checks.items() if not ok]
        if bad:
            sys.exit(f"python {name}: {', '.join(bad)} differ from the case's bytes/values")
        if name == "person":
            ops = {("roundtrip", "plain"): lambda: read(write()),
                   ("roundtrip", "typed"): lambda: codec.decode(codec.encode(values), era)}
        else:
            ops = {("write", "plain"): write, ("read", "plain"): lambda: read(canonical),
                   ("write", "typed"): lambda: codec.encode(values), ("read", "typed"): lambda: codec.decode(canonical, era)}
        for (op, path), fn in ops.items():
            r = measure(fn, args.repeat, args.target)
            print(json.dumps({**meta, "case": name, "op": op, "path": path, "bytes": len(canonical), **r}), flush=True)


if __name__ == "__main__":
    main()
