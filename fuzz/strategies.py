"""Hypothesis strategies for typed values (schema/value.schema.json), per era, from schema/registry.json.

Every strategy mixes boundary values (header and width edges, NaN payloads, UTF-8 edges, decimal scales,
date and instant limits) with general ones. An element is (era, value, kind): kind "value" for values every
encoder must write, "reject" for values every encoder must refuse (the generator says with which class).
Strategies list the simplest choice first: Hypothesis shrinks towards it.
"""

import calendar

from hypothesis import strategies as st

from generator import ignite

ERAS = [era["id"] for era in ignite.REGISTRY["eras"]]
LAYOUT_TYPE = {layout["id"]: layout["value_type"] for layout in ignite.REGISTRY["layouts"]}
# era -> {value type: ext code} of the Ignite types the era assigns.
ERA_TYPES = {era: {LAYOUT_TYPE[ext["layouts"][era]]: ext["code"] for ext in ignite.REGISTRY["ext_types"]
                   if era in ext["layouts"]} for era in ERAS}
ALL_IGNITE_TYPES = sorted({LAYOUT_TYPE[layout] for layout in LAYOUT_TYPE})

INT_MIN, INT_MAX = -(2 ** 63), 2 ** 64 - 1
INT32_MIN, INT32_MAX = -(2 ** 31), 2 ** 31 - 1


def named(function):
    """Hypothesis re-reads a lambda's source text on every map() draw (to print examples); a named function
    costs nothing there, and that is most of the generation time for large batches."""
    function.__name__ = "fuzz_map"
    return function


def edged(edges, general):
    """A boundary value or a general one; boundaries come first, so shrinking prefers them."""
    return st.one_of(st.sampled_from(edges), general)


def around(points, low, high):
    """Each point and its neighbours, kept within [low, high]."""
    return sorted({p + d for p in points for d in (-1, 0, 1) if low <= p + d <= high}, key=lambda n: (abs(n), n))


# --- MessagePack scalars ----------------------------------------------------------------------------
INT_EDGES = around([0, -32, 127, 255, 2 ** 15, 2 ** 16, 2 ** 31, 2 ** 32, 2 ** 63, 2 ** 64 - 1,
                    -(2 ** 7), -(2 ** 15), -(2 ** 31), -(2 ** 63)], INT_MIN, INT_MAX)
ints = edged(INT_EDGES, st.integers(INT_MIN, INT_MAX)).map(named(lambda n: {"type": "int", "value": str(n)}))


def float_bits(width):
    exp_bits, total = (8, 32) if width == 32 else (11, 64)
    frac = total - 1 - exp_bits
    inf = ((1 << exp_bits) - 1) << frac
    sign = 1 << (total - 1)
    edges = [0, sign, inf, sign | inf, inf | (1 << (frac - 1)), inf | 1, inf | ((1 << frac) - 1), sign | inf | 1,
             1, (1 << frac) - 1, 1 << frac, inf - 1, sign | 1]
    nan = st.tuples(st.booleans(), st.integers(1, (1 << frac) - 1)).map(named(lambda t: (sign if t[0] else 0) | inf | t[1]))
    digits = total // 4
    return edged(edges, st.one_of(st.integers(0, (1 << total) - 1), nan)).map(
        named(lambda b: {"type": f"float{width}", "bits": format(b, f"0{digits}x")}))


# Characters at UTF-8 width edges and other places codecs get wrong (NUL, BOM, the last scalar values).
UTF8_EDGE_CHARS = "\x00\x7f\x80\u07ff\u0800\ud7ff\ue000\ufeff\ufffd\uffff\U00010000\U0010ffff"
STR_HEADER_EDGES = [31, 32, 255, 256]
BIG_EDGES_16 = [65535, 65536]       # str16 / bin16 limits: top-level values only (containers repeat children)


def sized_text(n_bytes, unit):
    """A str of exactly n_bytes UTF-8 bytes made of `unit` (ASCII padding where the unit does not divide)."""
    width = len(unit.encode("utf-8"))
    return unit * (n_bytes // width) + "a" * (n_bytes % width)




def strs(edges):
    return st.one_of(
        st.text(max_size=12),
        st.text(alphabet=UTF8_EDGE_CHARS, max_size=8),
        st.tuples(st.sampled_from(edges), st.sampled_from(["a", "\u00e9", "\u20ac", "\U0001f600"])).map(
            named(lambda t: sized_text(*t))),
    ).map(named(lambda s: {"type": "str", "value": s}))


def bins(edges):
    return st.one_of(
        st.binary(max_size=16),
        st.tuples(st.sampled_from(edges), st.integers(0, 255)).map(named(lambda t: bytes([t[1]]) * t[0])),
    ).map(named(lambda b: {"type": "bin", "hex": b.hex()}))


big_strs_bins = st.one_of(strs(BIG_EDGES_16), bins(BIG_EDGES_16))

EXT_PAYLOAD_EDGES = [0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 255, 256]


def raw_ext(era):
    assigned = set(ERA_TYPES[era].values())
    codes = [c for c in range(-128, 128) if c not in assigned]
    edges = [c for c in (0, 1, -1, 127, -128, 3, 8) if c in codes]
    payload = st.one_of(st.binary(max_size=12),
                        st.tuples(st.sampled_from(EXT_PAYLOAD_EDGES), st.integers(0, 255)).map(
                            named(lambda t: bytes([t[1]]) * t[0])))
    return st.tuples(edged(edges, st.sampled_from(codes)), payload).map(
        named(lambda t: {"type": "ext", "code": t[0], "hex": t[1].hex()}))


# --- Ignite types -----------------------------------------------------------------------------------
BIG_EDGES = around([0] + [s * 2 ** (8 * k - 1) for k in range(1, 17) for s in (1, -1)], -(2 ** 130), 2 ** 130)
bigints = edged(BIG_EDGES, st.integers(-(2 ** 200), 2 ** 200))
SCALE_EDGES = around([0, -32, 127, 255, 2 ** 15, 2 ** 16, INT32_MAX, INT32_MIN, -(2 ** 7), -(2 ** 15)],
                     INT32_MIN, INT32_MAX)
scales = edged(SCALE_EDGES, st.integers(INT32_MIN, INT32_MAX))
uuids = edged(["00000000-0000-0000-0000-000000000000", "ffffffff-ffff-ffff-ffff-ffffffffffff",
               "00000000-0000-0000-ffff-ffffffffffff"], st.uuids().map(str))

YEAR_EDGES = [2000, 0, 1, -1, 1970, 1900, 1600, 2100, 4, -4, 9999, 10000, ignite.YEAR_MIN, ignite.YEAR_MAX,
              ignite.YEAR_MIN + 1, ignite.YEAR_MAX - 1]


def last_day(year, month):
    return [31, 29 if calendar.isleap(year) else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]


dates = st.tuples(edged(YEAR_EDGES, st.integers(ignite.YEAR_MIN, ignite.YEAR_MAX)), st.integers(1, 12),
                  edged([1, 28, 29, 30, 31], st.integers(1, 31))).map(
    named(lambda t: {"year": t[0], "month": t[1], "day": min(t[2], last_day(t[0], t[1]))}))
NANO_EDGES = [0, 1, 999_999_999, 500_000_000, 999_999, 1_000_000]
nanos = edged(NANO_EDGES, st.integers(0, 999_999_999))
times = st.tuples(edged([0, 23], st.integers(0, 23)), edged([0, 59], st.integers(0, 59)),
                  edged([0, 59], st.integers(0, 59)), nanos).map(
    named(lambda t: {"hour": t[0], "minute": t[1], "second": t[2], "nano": t[3]}))
SECOND_EDGES = around([0, 2 ** 31, -(2 ** 31), 2 ** 32, ignite.INSTANT_MIN + 1, ignite.INSTANT_MAX - 1],
                      ignite.INSTANT_MIN, ignite.INSTANT_MAX)
seconds = edged(SECOND_EDGES, st.integers(ignite.INSTANT_MIN, ignite.INSTANT_MAX))
bitsets = edged([[], [0], [7], [8], [63], [64], [0, 7, 8, 15]],
                st.lists(st.integers(0, 300), max_size=10, unique=True).map(sorted))


def ignite_types(era):
    """{value type: strategy of values} for the Ignite types this era assigns."""
    tag = lambda kind: (lambda fields: {"type": kind, "era": era, **fields})  # noqa: E731
    all_ = {
        "number": bigints.map(named(lambda n: {"value": str(n)})),
        "decimal": st.tuples(bigints, scales).map(named(lambda t: {"unscaled": str(t[0]), "scale": t[1]})),
        "uuid": uuids.map(named(lambda u: {"value": u})),
        "date": dates,
        "time": times,
        "datetime": st.tuples(dates, times).map(named(lambda t: {**t[0], **t[1]})),
        "timestamp": st.tuples(seconds, nanos).map(named(lambda t: {"seconds": str(t[0]), "nano": t[1]})),
        "bitmask": bitsets.map(named(lambda bits: {"bits": bits})),
        "ignite_uuid": st.tuples(uuids, st.integers(INT_MIN, 2 ** 63 - 1)).map(
            named(lambda t: {"global": t[0], "local": str(t[1])})),
        "no_value": st.just({}),
    }
    return {kind: all_[kind].map(named(tag(kind))) for kind in ERA_TYPES[era]}


# --- values and elements ----------------------------------------------------------------------------
def values(era):
    scalars = st.one_of(st.just({"type": "nil"}), st.booleans().map(named(lambda b: {"type": "bool", "value": b})),
                        ints, float_bits(32), float_bits(64), strs(STR_HEADER_EDGES), bins([255, 256]),
                        raw_ext(era), *ignite_types(era).values())

    def containers(children):
        return st.one_of(
            st.lists(children, max_size=4).map(named(lambda items: {"type": "array", "items": items})),
            st.lists(st.tuples(children, children).map(list), max_size=3).map(
                named(lambda entries: {"type": "map", "entries": entries})),
            # header edges: fixarray / fixmap hold 15
            st.tuples(st.sampled_from([15, 16]), scalars).map(named(lambda t: {"type": "array", "items": [t[1]] * t[0]})),
        )

    # 1 in 32 top-level values is a str or bin at the 16-bit header limit; nothing nests those.
    nested = st.recursive(scalars, containers, max_leaves=6)
    return st.integers(0, 31).flatmap(named(lambda i: big_strs_bins if i == 31 else nested))


def invalid_values(era):
    """Values no encoder may write in this era; generator.encode.canonical() names the error class."""
    tag = {"era": era}
    date_fields = st.tuples(st.sampled_from([ignite.YEAR_MAX + 1, ignite.YEAR_MIN - 1, 2023]),
                            st.sampled_from([0, 13, 2]), st.sampled_from([0, 29, 32]))
    bad = [
        st.sampled_from([INT_MAX + 1, INT_MIN - 1, 2 ** 70, -(2 ** 70)]).map(named(lambda n: {"type": "int", "value": str(n)})),
        st.sampled_from([128, -129, 255, 1000]).map(named(lambda c: {"type": "ext", "code": c, "hex": "00"})),
        # an Ignite type the era does not assign (every type, in era msgpack)
        *[st.just(example) for example in unassigned_examples(era)],
    ]
    kinds = ERA_TYPES[era]
    if "date" in kinds:
        bad.append(date_fields.map(named(lambda t: {"type": "date", **tag, "year": t[0], "month": t[1], "day": t[2]}))
                   .filter(named(lambda v: _invalid_date(v))))
    if "time" in kinds:
        bad.append(st.sampled_from([(24, 0, 0, 0), (0, 60, 0, 0), (0, 0, 60, 0), (0, 0, 0, 10 ** 9), (0, 0, 0, -1)])
                   .map(named(lambda t: {"type": "time", **tag, "hour": t[0], "minute": t[1], "second": t[2], "nano": t[3]})))
    if "timestamp" in kinds:
        bad.append(st.sampled_from([(ignite.INSTANT_MAX + 1, 0), (ignite.INSTANT_MIN - 1, 0), (0, 10 ** 9), (0, -1)])
                   .map(named(lambda t: {"type": "timestamp", **tag, "seconds": str(t[0]), "nano": t[1]})))
    if "decimal" in kinds:
        bad.append(st.sampled_from([2 ** 31, -(2 ** 31) - 1]).map(
            named(lambda s: {"type": "decimal", **tag, "unscaled": "1", "scale": s})))
    return st.one_of(*bad)


def _invalid_date(v):
    try:
        ignite.check_date(v["year"], v["month"], v["day"])
    except ignite.Invalid:
        return True
    return False


def unassigned_examples(era):
    examples = {"number": {"value": "1"}, "decimal": {"unscaled": "1", "scale": 0},
                "uuid": {"value": "00000000-0000-0000-0000-000000000001"},
                "date": {"year": 2000, "month": 1, "day": 1}, "time": {"hour": 0, "minute": 0, "second": 0, "nano": 0},
                "datetime": {"year": 2000, "month": 1, "day": 1, "hour": 0, "minute": 0, "second": 0, "nano": 0},
                "timestamp": {"seconds": "0", "nano": 0}, "bitmask": {"bits": [1]},
                "ignite_uuid": {"global": "00000000-0000-0000-0000-000000000001", "local": "1"}, "no_value": {}}
    if era == "msgpack":        # an Ignite value always names an Ignite era: none to state here
        return []
    return [{"type": kind, "era": era, **examples[kind]} for kind in ALL_IGNITE_TYPES if kind not in ERA_TYPES[era]]


_ELEMENTS = {}


def element(era):
    """(era, value, kind) with about 1 in 16 a must-refuse value."""
    if era not in _ELEMENTS:
        good = values(era).map(named(lambda v: (era, v, "value")))
        bad = invalid_values(era).map(named(lambda v: (era, v, "reject")))
        _ELEMENTS[era] = st.integers(0, 15).flatmap(named(lambda i: bad if i == 15 else good))
    return _ELEMENTS[era]


value_elements = st.sampled_from(ERAS).flatmap(element)
# 1 element in 8 is a frame of a random kind (fuzz/frames.py; deferred: that module imports this one).
elements = st.integers(0, 7).flatmap(named(lambda i: st.deferred(lambda: frames.elements) if i == 7 else value_elements))


def batches(size):
    """Lists of `size` elements about half the time, else 1..size: the shrinker can cut a batch to one value."""
    return st.one_of(st.integers(1, size), st.just(size)).flatmap(
        named(lambda n: st.lists(elements, min_size=n, max_size=n)))


from fuzz import frames  # noqa: E402  (at the end: fuzz/frames.py builds on the strategies above)
