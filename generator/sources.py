"""Readable case sources (generator/sources/*.yaml) -> corpus vectors.

A source file is data: values in a short notation, loops over value lists (`foreach`), and
expressions such as "2**53 + 1". This module only expands that notation; the bytes come from
encode.py / wire.py. See generator/README.md for the source format.
"""
import ast
import itertools
import operator
import string
from fractions import Fraction

from . import encode, ignite, wire

RULE_LEVEL = {rule["id"]: rule["level"] for rule in ignite.REGISTRY["rules"]}


class SourceError(ValueError):
    pass


# --- expressions: integers, fractions and a few names; nothing else is evaluated -------------
_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Pow: operator.pow,
           ast.Div: lambda a, b: Fraction(a) / Fraction(b), ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod}
_COMPARE = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
            ast.Gt: operator.gt, ast.GtE: operator.ge}
_FUNCS = {"range": lambda *a: list(range(*a)), "len": len, "utf8len": lambda s: len(s.encode("utf-8")),
          # hex(n, size): n as `size` big-endian bytes in lower-case hex (two's complement when negative), for ids
          "hex": lambda n, size: wire.be(n, size, signed=n < 0).hex()}


def evaluate(expr, names: dict | None = None):
    if not isinstance(expr, str):
        return expr
    names = names or {}
    expr = subst(expr, names)

    def ev(node):
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, str)):
            return node.value
        if isinstance(node, ast.Constant) and isinstance(node.value, float):
            return Fraction(repr(node.value))  # decimal-exact: "0.1" is 1/10, not the nearest double
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _COMPARE:
            return _COMPARE[type(node.ops[0])](ev(node.left), ev(node.comparators[0]))
        if isinstance(node, ast.BoolOp):
            values = [ev(v) for v in node.values]
            return all(values) if isinstance(node.op, ast.And) else any(values)
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            left, right = ev(node.left), ev(node.right)
            if isinstance(node.op, ast.Pow) and isinstance(right, int) and right < 0:
                return Fraction(1, left ** -right)  # exact: 2**-149 stays a power of two
            return _BINARY[type(node.op)](left, right)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            return -ev(node.operand) if isinstance(node.op, ast.USub) else ev(node.operand)
        if isinstance(node, ast.Name) and node.id in names:
            return names[node.id]
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _FUNCS:
            return _FUNCS[node.func.id](*[ev(a) for a in node.args])
        raise SourceError(f"unsupported expression {expr!r}")

    try:
        return ev(ast.parse(expr.strip(), mode="eval"))
    except SyntaxError as e:
        raise SourceError(f"bad expression {expr!r}: {e}") from None


def as_int(expr, names) -> int:
    value = evaluate(expr, names)
    if isinstance(value, Fraction) and value.denominator == 1:
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool):
        raise SourceError(f"{expr!r} is not an integer")
    return value


def float_bits(expr, names, width: int) -> int:
    """Bits of an exactly representable number (or inf/-inf); inexact numbers must be given as bits."""
    if expr in ("inf", "-inf"):
        x = float(expr)
    else:
        value = Fraction(evaluate(expr, names))
        x = float(value)
        if Fraction(x) != value:
            raise SourceError(f"{expr!r} is not exact in binary64; give the bits")
    bits = wire.f32_bits(x) if width == 32 else wire.f64_bits(x)
    if width == 32 and x not in (float("inf"), float("-inf")) and Fraction(struct_f32(bits)) != Fraction(x):
        raise SourceError(f"{expr!r} is not exact in binary32; give the bits")
    return bits


def struct_f32(bits: int) -> float:
    import struct
    return struct.unpack(">f", bits.to_bytes(4, "big"))[0]


# --- value notation --------------------------------------------------------------------------
def repeated(spec, names, unit):
    """A string or byte run: either a literal, or {repeat, count, prefix, suffix}."""
    if not isinstance(spec, dict):
        return subst(spec, names)
    body = subst(spec["repeat"], names) * as_int(spec["count"], names)
    return subst(spec.get("prefix", unit), names) + body + subst(spec.get("suffix", unit), names)


def value(spec, names: dict, era: str) -> dict:
    """Short notation -> typed value (schema/value.schema.json)."""
    spec = resolve(spec, names)   # "$name" for a bound value, also as an item of an array or map
    if spec == "nil":
        return {"type": "nil"}
    if isinstance(spec, bool):
        return {"type": "bool", "value": spec}
    if not (isinstance(spec, dict) and len(spec) == 1):
        raise SourceError(f"cannot read value {spec!r}")
    (kind, arg), = spec.items()
    arg = resolve(arg, names)
    E = lambda x: evaluate(subst(x, names), names) if isinstance(x, str) else x
    if kind == "int":
        return {"type": "int", "value": str(as_int(subst(arg, names), names))}
    if kind in ("float32", "float64"):
        width = int(kind[5:])
        return {"type": kind, "bits": format(float_bits(subst(arg, names), names, width), f"0{width // 4}x")}
    if kind in ("float32_bits", "float64_bits"):
        width = int(kind[5:7])
        return {"type": kind[:7], "bits": format(int(subst(arg, names), 16), f"0{width // 4}x")}
    if kind == "str":
        return {"type": "str", "value": repeated(arg, names, "")}
    if kind == "bin":
        return {"type": "bin", "hex": repeated(arg, names, "").replace(" ", "").lower()}
    if kind == "array":
        if isinstance(arg, dict):
            return {"type": "array", "items": [value(arg["repeat"], names, era)] * as_int(arg["count"], names)}
        return {"type": "array", "items": [value(v, names, era) for v in arg]}
    if kind == "map":
        if isinstance(arg, dict):  # {count: N}: int keys 0..N-1, nil values
            return {"type": "map", "entries": [[{"type": "int", "value": str(i)}, {"type": "nil"}] for i in range(as_int(arg["count"], names))]}
        return {"type": "map", "entries": [[value(k, names, era), value(v, names, era)] for k, v in arg]}
    if kind == "nest":  # {nest: {depth: N, kind: array|map, leaf: value}}
        leaf = value(arg.get("leaf", {"int": 1}), names, era)
        for _ in range(as_int(arg["depth"], names)):
            leaf = {"type": "array", "items": [leaf]} if subst(arg.get("kind", "array"), names) == "array" else {"type": "map", "entries": [[{"type": "str", "value": "k"}, leaf]]}
        return leaf
    if kind == "ext":
        return {"type": "ext", "code": as_int(subst(arg["code"], names), names), "hex": repeated(arg.get("hex", ""), names, "").replace(" ", "").lower()}
    # Ignite types: positional fields, the era comes from the case.
    ig = {"type": kind, "era": era}
    if kind == "number":
        ig["value"] = str(as_int(subst(arg, names), names))
    elif kind == "decimal":
        ig["unscaled"], ig["scale"] = str(as_int(subst(arg[0], names), names)), as_int(subst(arg[1], names), names)
    elif kind == "uuid":
        ig["value"] = subst(arg, names)
    elif kind in ("date", "time", "datetime"):
        fields = {"date": ["year", "month", "day"], "time": ["hour", "minute", "second", "nano"]}
        keys = fields["date"] + fields["time"] if kind == "datetime" else fields[kind]
        ig.update({k: as_int(subst(x, names), names) for k, x in zip(keys, arg, strict=True)})
    elif kind == "timestamp":
        ig["seconds"], ig["nano"] = str(as_int(subst(arg[0], names), names)), as_int(subst(arg[1], names), names)
    elif kind == "bitmask":
        ig["bits"] = [as_int(subst(b, names), names) for b in (E(arg) if isinstance(arg, str) else arg)]
    elif kind == "ignite_uuid":
        ig["global"], ig["local"] = subst(arg[0], names), str(as_int(subst(arg[1], names), names))
    elif kind != "no_value":
        raise SourceError(f"unknown value kind {kind!r}")
    return ig


def subst(x, names):
    """$name templating in strings (string.Template), recursively in lists."""
    if isinstance(x, str):
        return string.Template(x).safe_substitute({k: v for k, v in names.items()})
    if isinstance(x, list):
        return [subst(i, names) for i in x]
    return x


HEADER_TABLES = {"str": wire.STR_HEADERS, "bin": wire.BIN_HEADERS, "array": wire.ARRAY_HEADERS, "map": wire.MAP_HEADERS}


def payload_bytes(spec, names, era) -> bytes:
    """A payload: a hex string, {repeat, count, prefix, suffix}, or a list of byte parts (hex_bytes)."""
    if isinstance(spec, list):
        return hex_bytes(spec, names, era)
    return bytes.fromhex(repeated(spec, names, ""))


def hex_bytes(spec, names, era) -> bytes:
    """Reject inputs: a hex string (spaces allowed) or a list of parts: hex strings, {value: ...} (its
    canonical bytes), {repeat: hex, count: N}, {be: EXPR, size: N} (an integer as N big-endian bytes,
    two's complement when negative), {str_payload: P}, {ext_payload: P, code: C} (P: see payload_bytes),
    {array_header: N}, {map_header: N}, {header: str|bin|array|map, length: N} and {ext_header: C, length: N}:
    a bare header declaring N (each with an optional explicit `form`)."""
    if isinstance(spec, str):
        return bytes.fromhex(subst(spec, names))
    out = b""
    for part in spec:
        if isinstance(part, str):
            out += bytes.fromhex(subst(part, names))
        elif "value" in part:
            out += encode.canonical(value(part["value"], names, era))
        elif "str_payload" in part:  # a str header sized for raw (possibly invalid) payload bytes
            data = payload_bytes(resolve(part["str_payload"], names), names, era)
            out += wire.str_header(len(data), subst(part.get("form"), names)) + data
        elif "ext_payload" in part:  # {ext_payload: P, code: C, form: optional container}
            data = payload_bytes(resolve(part["ext_payload"], names), names, era)
            out += wire.ext(as_int(subst(part["code"], names), names), data, subst(part.get("form"), names))
        elif "array_header" in part:
            out += wire.array_header(as_int(subst(part["array_header"], names), names), subst(part.get("form"), names))
        elif "map_header" in part:
            out += wire.map_header(as_int(subst(part["map_header"], names), names), subst(part.get("form"), names))
        elif "header" in part:  # a header alone: its declared length or count is the point
            table = HEADER_TABLES[subst(part["header"], names)]
            length = as_int(subst(part["length"], names), names)
            out += wire.header(table, subst(part.get("form"), names) or wire.smallest(table, length), length)
        elif "ext_header" in part:
            out += wire.ext_header(as_int(subst(part["ext_header"], names), names),
                                   as_int(subst(part["length"], names), names), subst(part.get("form"), names))
        elif "be" in part:
            n, size = as_int(subst(part["be"], names), names), as_int(subst(part["size"], names), names)
            out += wire.be(n, size, signed=n < 0)
        elif "repeat" in part:
            out += bytes.fromhex(subst(part["repeat"], names)) * as_int(subst(part["count"], names), names)
        else:
            raise SourceError(f"cannot read byte part {part!r}")
    return out


# --- cases -----------------------------------------------------------------------------------
def bindings(foreach: dict | None, where: str | None):
    """Every combination of the foreach lists; dict items bind <var>_<key> too."""
    if not foreach:
        yield {}
        return
    names = list(foreach)
    lists = [evaluate(v) if isinstance(v, str) else v for v in foreach.values()]
    for combo in itertools.product(*lists):
        b = {}
        for name, item in zip(names, combo):
            if isinstance(item, dict):
                b.update({f"{name}_{k}": v for k, v in item.items()})
            else:
                b[name] = item
        if where is None or evaluate(subst(where, b), b):
            yield b


SECTIONS = (("cases", "value"), ("rejects", "decode-reject"), ("encode_rejects", "encode-reject"))


def each_case(source: dict, path: str, build) -> list[dict]:
    """build(case, names, kind, era, since) for every case of every section and every foreach binding,
    after `let:` names are computed; an error names the source file, the case and the binding."""
    vectors = []
    for section, kind in SECTIONS:
        for case in source.get(section, []):
            for names in bindings(case.get("foreach"), case.get("where")):
                # let: names computed from the bound ones (e.g. a byte's hex for an id), in order
                for name, expr in case.get("let", {}).items():
                    names[name] = evaluate(subst(expr, names), names)
                era = str(subst(str(case.get("era", source["era"])), names))
                try:
                    vectors.append(build(case, names, kind, era, str(case.get("since", source["since"]))))
                except (SourceError, ignite.Invalid, ValueError, KeyError, TypeError) as e:
                    raise SourceError(f"{path}: case {case.get('id')!r} with {names}: {e}") from e
    return vectors


def expand(source: dict, path: str) -> list[dict]:
    """A MessagePack source's vectors (generator/expand.py sends Binary Tuple sources to bt_sources.py)."""
    return each_case(source, path, vector)


def resolve(spec, names):
    """`$name` alone stands for a bound structure (a value or a byte list), not for its text."""
    if isinstance(spec, str) and spec.startswith("$") and not isinstance(names.get(spec[1:]), (str, type(None))):
        return names[spec[1:]]
    return spec


def vector(case: dict, names: dict, kind: str, era: str, since: str) -> dict:
    rules = subst(case["rules"], names)
    unknown = [r for r in rules if r not in RULE_LEVEL]
    if unknown:
        raise SourceError(f"unknown rules {unknown}")
    v = {"id": subst(case["id"], names), "description": subst(case["description"], names), "era": era,
         "level": RULE_LEVEL[rules[0]], "rules": rules, "since": since, "kind": kind}
    specs = resolve(case["values"], names) if "values" in case else [case["value"]] if "value" in case else None
    specs = [resolve(s, names) for s in specs] if specs is not None else None
    if kind == "decode-reject":
        v["hex"] = hex_bytes(resolve(case["bytes"], names), names, era).hex()
        v["error"] = case["error"]
        return v
    values = [value(s, names, era) for s in specs]
    v["values"] = values
    if kind == "encode-reject":
        v["error"] = case["error"]
        try:
            b"".join(encode.canonical(x) for x in values)
        except ignite.Invalid as e:
            if e.error_class != case["error"]:
                raise SourceError(f"the generator rejects it as {e.error_class}, the source says {case['error']}")
            return v
        raise SourceError("the generator can encode this value; it is not an encode-reject")
    data = b"".join(encode.canonical(x) for x in values)
    if "length" in case and len(data) != case["length"]:
        raise SourceError(f"canonical encoding is {len(data)} bytes, the source asserts {case['length']}")
    v["canonical"] = data.hex()
    v["variants"] = encode.variants(values[0]) if len(values) == 1 and case.get("variants", True) else []
    for named in case.get("producers", []):   # name a wider form after the official client that writes it
        form = subst(named["form"], names)
        hit = [x for x in v["variants"] if x["label"] == form]
        if not hit:
            raise SourceError(f"no {form!r} variant to name {named['label']!r}")
        hit[0]["label"], hit[0]["why"] = subst(named["label"], names), subst(named["why"], names)
    for extra in case.get("accept", []):   # other bytes every decoder must read, e.g. a wide header deeper inside
        v["variants"].append({"label": subst(extra["label"], names), "hex": hex_bytes(resolve(extra["bytes"], names), names, era).hex(),
                              "why": subst(extra["why"], names), "rules": subst(extra["rules"], names), "encoder_may_emit": False})
    if "nan" in case:
        v["nan"] = case["nan"]
    return v
