"""Binary Tuple case sources (generator/sources/bt-*.yaml, those with a top-level `format:`) -> vectors.

The same source conventions as sources.py (foreach / where / let, $name templates, expressions), with
ColumnType-typed elements in a short notation:
  NULL, NO_VALUE, {BOOLEAN: true}, {INT8|INT16|INT32|INT64: EXPR}, {NUMBER: EXPR} (beta1 only), {FLOAT|DOUBLE: EXPR} (exact numbers, inf,
  -inf), {FLOAT_BITS|DOUBLE_BITS: HEX}, {DECIMAL: [UNSCALED, SCALE]}, {DATE: [Y, M, D]}, {TIME: [H, M, S, NANO]},
  {DATETIME: [Y, M, D, H, M, S, NANO]}, {TIMESTAMP|DURATION: [SECONDS, NANO]}, {PERIOD: [Y, M, D]},
  {UUID: TEXT}, {STRING: TEXT or {repeat, count}}, {BYTE_ARRAY: HEX, {repeat, count} or {mul, count}},
  {MARSHALLED: HEX} (format compute-arg only).
A case has `values` (or `value`; or {repeat_values: E, count: N}; or {first: [...], then: E, count: N}), optional
`columns` (ColumnType names, or {repeat_columns: T, count: N}; inferred from non-NULL values), optional
`column_params` (one {precision, scale} per column, for producer profiles that depend on them), optional `format` /
`era` overriding the source's, optional `expect` (bytes, cited from Ignite or the research, that the canonical
encoding must equal) and `accept` (cited non-canonical bytes that become variants; `encoder_may_emit: true` for a
producer's own form). Reject cases give `bytes`: a hex string or a list of parts:
hex strings, {repeat: HEX, count: N}, {le: EXPR, size: N}, {element: ELEMENT}, {tuple: [ELEMENTS]} and
{bin: [PARTS]} (a MessagePack bin around the parts).
"""
from . import binary_tuple as bt, wire
from .ignite import Invalid
from .sources import RULE_LEVEL, SourceError, as_int, each_case, evaluate, float_bits, repeated, resolve, subst

FIELDS = {"DECIMAL": ["unscaled", "scale"], "DATE": ["year", "month", "day"], "TIME": ["hour", "minute", "second", "nano"],
          "DATETIME": ["year", "month", "day", "hour", "minute", "second", "nano"], "TIMESTAMP": ["seconds", "nano"],
          "DURATION": ["seconds", "nano"], "PERIOD": ["years", "months", "days"]}
BIG = {"unscaled", "seconds"}   # decimal strings in the notation


def element(spec, names) -> dict:
    spec = resolve(spec, names)
    if spec is None:   # YAML reads a bare NULL as null
        return {"type": "NULL"}
    if isinstance(spec, str) and subst(spec, names) in ("NULL", "NO_VALUE"):
        return {"type": subst(spec, names)}
    if not (isinstance(spec, dict) and len(spec) == 1):
        raise SourceError(f"cannot read element {spec!r}")
    (kind, arg), = spec.items()
    kind, arg = subst(kind, names), resolve(arg, names)
    if kind == "BOOLEAN":
        return {"type": kind, "value": evaluate(subst(arg, names), names) if isinstance(arg, str) else arg}
    if kind in bt.INT_WIDTHS or kind == "NUMBER":
        return {"type": kind, "value": str(as_int(subst(arg, names), names))}
    if kind in ("FLOAT", "DOUBLE"):
        width = 32 if kind == "FLOAT" else 64
        return {"type": kind, "bits": format(float_bits(subst(arg, names), names, width), f"0{width // 4}x")}
    if kind in ("FLOAT_BITS", "DOUBLE_BITS"):
        width = 8 if kind == "FLOAT_BITS" else 16
        return {"type": kind[:-5], "bits": format(int(subst(arg, names), 16), f"0{width}x")}
    if kind in FIELDS:
        if len(arg) != len(FIELDS[kind]):
            raise SourceError(f"{kind} needs {FIELDS[kind]}")
        out = {"type": kind}
        for key, x in zip(FIELDS[kind], arg):
            n = as_int(subst(x, names), names)
            out[key] = str(n) if key in BIG else n
        return out
    if kind == "UUID":
        return {"type": kind, "value": subst(arg, names)}
    if kind == "MARSHALLED":   # compute-arg only: the bytes a user marshaller made (spec 6.4)
        return {"type": kind, "hex": repeated(arg, names, "").replace(" ", "").lower()}
    if kind == "STRING":
        return {"type": kind, "value": repeated(arg, names, "")}
    if kind == "BYTE_ARRAY":
        if isinstance(arg, dict) and "mul" in arg:   # {mul: K, count: N}: byte i is i*K mod 256 (C++ tuple_test blobs)
            k, n = as_int(subst(arg["mul"], names), names), as_int(subst(arg["count"], names), names)
            return {"type": kind, "hex": bytes(i * k % 256 for i in range(n)).hex()}
        return {"type": kind, "hex": repeated(arg, names, "").replace(" ", "").lower()}
    raise SourceError(f"unknown element kind {kind!r}")


def byte_parts(spec, names, era) -> bytes:
    spec = resolve(spec, names)
    if isinstance(spec, str):
        return bytes.fromhex(subst(spec, names))
    out = b""
    for part in spec:
        part = resolve(part, names)
        if isinstance(part, str):
            out += bytes.fromhex(subst(part, names))
        elif isinstance(part, list):
            out += byte_parts(part, names, era)
        elif "repeat" in part:
            out += bytes.fromhex(subst(part["repeat"], names)) * as_int(subst(part["count"], names), names)
        elif "le" in part:
            out += bt.le(as_int(subst(part["le"], names), names), as_int(subst(part["size"], names), names),
                         signed=as_int(subst(part["le"], names), names) < 0)
        elif "element" in part:
            out += bt.element(element(part["element"], names), era)
        elif "tuple" in part:
            out += bt.tuple_of([element(e, names) for e in resolve(part["tuple"], names)], era)
        elif "bin" in part:
            out += bt.bin_(byte_parts(part["bin"], names, era))
        else:
            raise SourceError(f"cannot read byte part {part!r}")
    return out


def column_list(spec, names) -> list[str]:
    spec = resolve(spec, names)
    if isinstance(spec, dict):   # {repeat_columns: TYPE, count: N}
        return [subst(spec["repeat_columns"], names)] * as_int(subst(spec["count"], names), names)
    return [subst(c, names) for c in spec]


def value_list(spec, names) -> list:
    """A list of element specs, or {repeat_values: E, count: N}, or {first: [...], then: E, count: N}."""
    spec = resolve(spec, names)
    if isinstance(spec, dict):
        count = as_int(subst(spec["count"], names), names)
        first = spec.get("first", [])
        return first + [spec.get("then", spec.get("repeat_values"))] * (count - len(first))
    return spec


def infer_columns(case, names, values) -> list[str]:
    if "columns" in case:
        return column_list(case["columns"], names)
    if any(v["type"] in ("NULL", "NO_VALUE") for v in values):
        raise SourceError("give `columns` when a value is NULL or NO_VALUE")
    return [v["type"] for v in values]


def vector(case: dict, names: dict, kind: str, era: str, fmt: str, since: str) -> dict:
    rules = subst(case["rules"], names)
    unknown = [r for r in rules if r not in RULE_LEVEL]
    if unknown:
        raise SourceError(f"unknown rules {unknown}")
    v = {"id": subst(case["id"], names), "description": subst(case["description"], names), "era": era,
         "level": RULE_LEVEL[rules[0]], "rules": rules, "since": since, "kind": kind, "format": fmt}
    needs_columns = fmt in ("binary-tuple", "table-row")
    if kind == "decode-reject":
        if needs_columns:
            v["columns"] = column_list(case["columns"], names)
        v["hex"] = byte_parts(case["bytes"], names, era).hex()
        v["error"] = case["error"]
        return v
    specs = value_list(case["values"], names) if "values" in case else [resolve(case["value"], names)]
    values = [element(s, names) for s in specs]
    if needs_columns:
        v["columns"] = infer_columns(case, names, values)
        bt.check_columns(fmt, v["columns"], values, era)
        if "column_params" in case:   # the schema's precision/scale a producer profile depends on (not on the wire)
            params = [resolve(p, names) or {} for p in resolve(case["column_params"], names)]
            if len(params) != len(v["columns"]) or any(set(p) - {"precision", "scale"} for p in params):
                raise SourceError("column_params: one {precision, scale} object per column")
            v["column_params"] = [{k: as_int(subst(str(x), names), names) for k, x in p.items()} for p in params]
    else:
        bt.check_columns(fmt, None, values, era)
    v["values"] = values
    if kind == "encode-reject":
        v["error"] = case["error"]
        try:
            bt.canonical(fmt, values, era)
        except Invalid as e:
            if e.error_class != case["error"]:
                raise SourceError(f"the generator rejects it as {e.error_class}, the source says {case['error']}")
            return v
        raise SourceError("the generator can encode this value; it is not an encode-reject")
    data = bt.canonical(fmt, values, era)
    if "length" in case and len(data) != as_int(subst(str(case["length"]), names), names):
        raise SourceError(f"canonical encoding is {len(data)} bytes, the source asserts {case['length']}")
    if "expect" in case:   # a literal from an Ignite test or the research: the builder must reproduce it
        want = byte_parts(case["expect"], names, era)
        if data != want:
            raise SourceError(f"canonical {data.hex()} differs from the cited bytes {want.hex()}")
    v["canonical"] = data.hex()
    v["variants"] = bt.variants(fmt, values, era) if case.get("variants", True) else []
    for extra in case.get("accept", []):   # cited non-canonical bytes every decoder must read (e.g. C++ tests)
        v["variants"].append({"label": subst(extra["label"], names), "hex": byte_parts(extra["bytes"], names, era).hex(),
                              "why": subst(extra["why"], names), "rules": subst(extra["rules"], names),
                              "encoder_may_emit": bool(extra.get("encoder_may_emit", False))})
    if "nan" in case:
        v["nan"] = case["nan"]
    return v


def expand(source: dict, path: str) -> list[dict]:
    return each_case(source, path, lambda case, names, kind, era, since: vector(
        case, names, kind, era, subst(case.get("format", source["format"]), names), since))
