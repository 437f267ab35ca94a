"""Derived vectors: must-reject inputs computed from the rest of the corpus and from the registry.

A source's `derive:` list holds entries {kind: K, id: TEMPLATE, description: TEMPLATE, rules: [...], ...};
each kind below turns the selected value vectors (or the registry's ext layouts) into decode-reject vectors.
Adding a value vector, an ext code or an era needs no code: the selections and the registry pick it up.
Adding a kind is code: one function here, listed in KINDS.

Selections (`from` / `exclude`: id globs) apply to the value vectors of sources that have no `derive:`
section, so nothing is derived from a derived vector. Derived vectors take the era of what they come from.
Templates use $names (string.Template); each kind documents its names.
"""
import fnmatch
import string

from . import binary_tuple as bt, ignite, wire
from .sources import RULE_LEVEL, SourceError, evaluate, value

RESERVED = wire.RESERVED


def select(pool: list[dict], spec: dict, single: bool) -> list[dict]:
    """Value vectors whose id matches a `from` glob and no `exclude` glob (single: one top-level value)."""
    wanted, unwanted = spec.get("from", ["*"]), spec.get("exclude", [])
    return [v for v in pool if v["kind"] == "value" and v.get("format", "msgpack") in spec.get("formats", ["msgpack"])
            and (not single or len(v["values"]) == 1)
            and any(fnmatch.fnmatchcase(v["id"], g) for g in wanted)
            and not any(fnmatch.fnmatchcase(v["id"], g) for g in unwanted)]


def encodings(v: dict, with_variants: bool):
    """(suffix for ids, label for descriptions, bytes): the canonical encoding, then each variant."""
    yield "", "canonical", bytes.fromhex(v["canonical"])
    if with_variants:
        for variant in v["variants"]:
            yield "." + variant["label"], variant["label"], bytes.fromhex(variant["hex"])


def fill(template: str, names: dict) -> str:
    return string.Template(template).substitute(names)


def reject(spec: dict, names: dict, era: str, data: bytes, error: str) -> dict:
    rules = spec["rules"]
    unknown = [r for r in rules if r not in RULE_LEVEL]
    if unknown:
        raise SourceError(f"unknown rules {unknown}")
    return {"id": fill(spec["id"], names), "description": fill(spec["description"], names), "era": era,
            "level": RULE_LEVEL[rules[0]], "rules": list(rules), "since": names["since"], "kind": "decode-reject",
            "hex": data.hex(), "error": error}


def later(a: str, b: str) -> str:
    return max(a, b, key=lambda s: tuple(int(x) for x in s.split(".")))


# --- truncations --------------------------------------------------------------------------------
def truncation_offsets(length: int, spec: dict) -> list[int]:
    """Every strict non-empty prefix of an encoding up to `every_offset_up_to` bytes. Longer encodings: the
    first `head` prefixes (the header is there, the body is not), and the last `tail` ones (input ending
    just before the end) only when the encoding is at most `tail_max_length` bytes, because each stored
    prefix costs its whole length twice over in hex."""
    if length <= spec["every_offset_up_to"]:
        return list(range(1, length))
    head = range(1, min(spec["head"], length - 1) + 1)
    tail = range(max(length - spec["tail"], spec["head"] + 1), length) if length <= spec["tail_max_length"] else []
    return list(head) + list(tail)


def truncations(spec: dict, pool: list[dict], since: str) -> list[dict]:
    """Names: $source (vector id), $variant ("" or ".<variant label>"), $label, $offset, $length.
    A strict prefix of ONE complete value always ends inside it, so the class is always
    malformed.truncated; a prefix of a sequence could end on a value boundary, so only single-value
    vectors qualify."""
    out = []
    for v in select(pool, spec, single=True):
        for suffix, label, data in encodings(v, spec.get("variants", False)):
            for offset in truncation_offsets(len(data), spec):
                names = {"source": v["id"], "variant": suffix, "label": label, "offset": offset,
                         "length": len(data), "since": later(since, v["since"])}
                out.append(reject(spec, names, v["era"], data[:offset], "malformed.truncated"))
    return out


def tuple_truncations(spec: dict, pool: list[dict], since: str) -> list[dict]:
    """Strict prefixes of Binary Tuple vectors (`formats`: binary-tuple, object). Names as `truncations`.
    A binary-tuple prefix shorter than its header and offset table is malformed.truncated (BT-TRUNC); a longer
    one keeps the whole table, whose last end offset then points past the input: malformed.tuple-offsets
    (BT-OFFSETS). An object is one bin, so every prefix ends inside it: malformed.truncated (GEN-TRUNC)."""
    out = []
    for v in select(pool, spec, single=False):
        data = bytes.fromhex(v["canonical"])
        fmt = v["format"]
        if fmt not in ("binary-tuple", "object") or (fmt == "binary-tuple" and v["era"] != "3.0"):
            raise SourceError(f"tuple-truncations: {v['id']} is {fmt} in {v['era']}; only 3.0 tuples and objects")
        table = 1 + len(v.get("columns", [])) * (1 << (data[0] & 3)) if fmt == "binary-tuple" else None
        for offset in truncation_offsets(len(data), spec):
            past_table = table is not None and offset >= table
            names = {"source": v["id"], "variant": "", "label": "canonical", "offset": offset, "length": len(data),
                     "since": later(since, v["since"])}
            rules = spec["rules_offsets"] if past_table else spec["rules"]
            out.append({**reject({**spec, "rules": rules}, names, v["era"], data[:offset],
                                 "malformed.tuple-offsets" if past_table else "malformed.truncated"),
                        "format": fmt, **({"columns": v["columns"]} if "columns" in v else {})})
    return out


def as_objects(spec: dict, pool: list[dict], since: str) -> list[dict]:
    """Value vectors: the element of each selected one-element 3.0 binary-tuple vector as an object
    (packObjectAsBinaryTuple), so every width and range edge the tuple corpus has is also an object edge.
    Names: $source, $type. The object's value is the element as is (a DECIMAL's value at its own scale)."""
    out = []
    for v in select(pool, {**spec, "formats": ["binary-tuple"]}, single=False):
        if v["era"] != "3.0" or len(v["values"]) != 1 or v["values"][0]["type"] == "NULL":
            continue
        values = v["values"]
        names = {"source": v["id"], "type": values[0]["type"], "since": later(since, v["since"])}
        rules = spec["rules"]
        try:
            data = bt.canonical("object", values, "3.0")
        except ignite.Invalid:
            continue   # a stored DECIMAL no producer can write as an object (scale outside int16 after stripping)
        out.append({"id": fill(spec["id"], names), "description": fill(spec["description"], names), "era": "3.0",
                    "level": RULE_LEVEL[rules[0]], "rules": list(rules), "since": names["since"], "kind": "value",
                    "format": "object", "values": values, "canonical": data.hex(),
                    "variants": bt.variants("object", values, "3.0")})
    return out


def decimal_columns(spec: dict, pool: list[dict], since: str) -> list[dict]:
    """Value vectors (table-row, one DECIMAL column with `column_params` scale): what each producer profile in
    `profiles` stores for every (unscaled, scale) in `unscaled` x `scales` written into a column of each scale in
    `column_scales` (binary_tuple.decimal_into_column). Names: $profile, $u, $s, $c, $su, $ss, $uid, $sid, $cid."""
    out = []
    ident = lambda n: str(n).replace("-", "m")
    for profile in spec["profiles"]:
        for u_expr in spec["unscaled"]:
            u = int(evaluate(str(u_expr), {}))
            for s in spec["scales"]:
                for c in spec["column_scales"]:
                    if profile in spec.get("small_rescale_only", []) and abs(c - s) > spec["small_rescale_only"][profile]:
                        continue
                    su, ss = bt.decimal_into_column(u, s, c, profile)
                    if not bt.fits(ss, 2):
                        continue   # the producer refuses ("Decimal scale is too large"): no bytes
                    names = {"profile": profile, "u": u, "s": s, "c": c, "su": su, "ss": ss, "uid": ident(u),
                             "sid": ident(s), "cid": ident(c), "since": since}
                    values = [{"type": "DECIMAL", "unscaled": str(su), "scale": ss}]
                    rules = spec["rules"][profile]
                    out.append({"id": fill(spec["id"], names), "description": fill(spec["description"], names),
                                "era": "3.0", "level": RULE_LEVEL[rules[0]], "rules": list(rules), "since": since,
                                "kind": "value", "format": "table-row", "columns": ["DECIMAL"],
                                "column_params": [{"scale": c}], "values": values,
                                "canonical": bt.canonical("table-row", values, "3.0").hex(),
                                "variants": bt.variants("table-row", values, "3.0")})
    return out


def tuple_lengths(spec: dict, pool: list[dict], since: str) -> list[dict]:
    """From the registry: for each ColumnType with a fixed set of element lengths, a one-column 3.0 Binary
    Tuple whose element has each impossible length from 1 to the largest + 1 (bytes `filler`), and for each
    type with a minimum length every length below it: invalid.tuple-length. Names: $type, $type_id (lower case), $length."""
    out = []
    filler = bytes.fromhex(spec["filler"])
    for col in ignite.REGISTRY["column_types"]:
        tup = col.get("tuple", {})
        if col["name"] == "NULL" or not tup:
            continue
        if "lengths" in tup:
            bad = [n for n in range(1, max(tup["lengths"]) + 2) if n not in tup["lengths"]]
        else:
            bad = list(range(1, tup["min_length"]))
        for n in bad:
            names = {"type": col["name"], "type_id": col["name"].lower().replace("_", "-"), "length": n, "since": since}
            data = bytes([0, n]) + filler * n
            out.append({**reject(spec, names, "3.0", data, "invalid.tuple-length"), "format": "binary-tuple",
                        "columns": [col["name"]]})
    return out


# --- per-getter leniency: every ColumnType's reader at every width, and its offsets broken ----------
def getter_examples(spec: dict) -> dict:
    """{ColumnType name: element} from `examples` (the bt_sources element notation), one per registry type."""
    from .bt_sources import element
    types = [c["name"] for c in ignite.REGISTRY["column_types"] if c["name"] in bt.TYPE_IDS and c["name"] != "NULL"]
    examples = {t: element(x, {}) for t, x in spec["examples"].items()}
    missing = [t for t in types if t not in examples or examples[t]["type"] != t]
    if missing or set(examples) - set(types):
        raise SourceError(f"examples must give one value of each 3.0 ColumnType: missing or wrong {missing}, "
                          f"unknown {sorted(set(examples) - set(types))}")
    return {t: examples[t] for t in types}


def allowed_lengths(name: str) -> list[int] | None:
    tup = next(c for c in ignite.REGISTRY["column_types"] if c["name"] == name)["tuple"]
    return tup.get("lengths")


def getter_widths(spec: dict, pool: list[dict], since: str) -> list[dict]:
    """Value vectors, `formats` binary-tuple and/or object: each ColumnType's example with every other width its
    reader must accept as variants (binary_tuple.variants). The example must be short enough that its variants
    reach every length the registry allows the type; otherwise the source is wrong. Objects also get the type id
    element at 4 bytes (2 is bt.variants' type-id-2) and a DECIMAL's scale element at 2 and 4. Rules: the type's own
    (`type_rules`), then `rules` (and BT-OBJECT for objects). Names: $type, $type_id, $format, $widths."""
    out = []
    for t, x in getter_examples(spec).items():
        canon = bt.element(x)
        lengths = sorted({len(canon)} | {len(d) for _l, d, _w, _r in bt.element_variants(x)})
        if allowed_lengths(t) is not None and lengths != allowed_lengths(t):
            raise SourceError(f"the {t} example reaches lengths {lengths}, the registry allows {allowed_lengths(t)}")
        names = {"type": t, "type_id": t.lower().replace("_", "-"), "widths": ", ".join(map(str, lengths)), "since": since}
        for fmt in spec["formats"]:
            rules = [spec["type_rules"][t]] + spec["rules"] + (["BT-OBJECT"] if fmt == "object" else [])
            variants = bt.variants(fmt, [x], "3.0")
            if fmt == "object":   # the INT32 getter of the type id (and a DECIMAL's scale) at its other widths
                type_id, scale, value = bt.TYPE_IDS[t], x["scale"] if t == "DECIMAL" else 0, bt.triple_parts(x)[2]
                for part, size in [("type-id", 4)] + ([("scale", 2), ("scale", 4)] if t == "DECIMAL" else []):
                    elems = [bt.le(type_id, size) if part == "type-id" else bt.int_element(type_id),
                             bt.le(scale, size) if part == "scale" else bt.int_element(scale), value]
                    variants.append({"label": f"{part}-{size}", "hex": bt.bin_(bt.tuple_bytes(elems)).hex(),
                                     "why": f"{part} as a {size}-byte INT32 element", "rules": ["BT-INT-WIDE"],
                                     "encoder_may_emit": False})
            out.append({"id": fill(spec["id"], {**names, "format": fmt}), "description": fill(spec["description"], names),
                        "era": "3.0", "level": RULE_LEVEL[rules[0]], "rules": list(rules), "since": since, "kind": "value",
                        "format": fmt, **({"columns": [t]} if fmt == "binary-tuple" else {}), "values": [x],
                        "canonical": bt.canonical(fmt, [x], "3.0").hex(), "variants": variants})
    return out


def getter_offsets(spec: dict, pool: list[dict], since: str) -> list[dict]:
    """Decode-rejects, malformed.tuple-offsets: for each ColumnType example x (L bytes) and each offset entry size
    E in `entry_sizes`, the offset table broken around x's element, as a two-column tuple of the type
    (`binary-tuple`) and, where `objects` is set, as the value element of an object (but `middle`; there
    `decreasing` ends the value element one byte before the scale element's end):
      decreasing: ends (L, L - 1) over x's bytes: the second element ends before it starts;
      past-end:   one element, end L + 1 over x's L bytes;
      middle:     ends (2L + 1, 2L) over x x: the first end points past the input, the last one does not;
      max:        one element, end 2^(8E) - 1 (E = 4: 2^32 - 1, negative as a Java int).
    Names: $type, $type_id, $case, $size."""
    out = []
    for t, x in getter_examples(spec).items():
        data = bt.element(x)
        n = len(data)
        for size in spec["entry_sizes"]:
            flags = {1: 0, 2: 1, 4: 2}[size]
            cases = {"decreasing": ([n, n - 1], data), "past-end": ([n + 1], data), "middle": ([2 * n + 1, 2 * n], data * 2),
                     "max": ([(1 << (8 * size)) - 1], data)}
            for case, (ends, area) in cases.items():
                names = {"type": t, "type_id": t.lower().replace("_", "-"), "case": case, "size": size, "since": since}
                table = b"".join(bt.le(e, size, signed=False) for e in ends)
                tup = bytes([flags]) + table + area
                out.append({**reject(spec, names, "3.0", tup, "malformed.tuple-offsets"), "format": "binary-tuple",
                            "columns": [t] * len(ends)})
                if spec.get("objects") and case != "middle":
                    head = [bt.int_element(bt.TYPE_IDS[t]), bt.int_element(0)]
                    obj_ends = [len(head[0]), len(head[0]) + len(head[1])]
                    obj_ends.append({"max": ends[0], "decreasing": obj_ends[1] - 1}.get(case, obj_ends[1] + ends[0]))
                    obj = bytes([flags]) + b"".join(bt.le(e, size, signed=False) for e in obj_ends) + b"".join(head) + area
                    out.append({**reject({**spec, "id": spec["object_id"], "description": spec["object_description"]},
                                         names, "3.0", bt.bin_(obj), "malformed.tuple-offsets"), "format": "object"})
    return out


def getter_object_lengths(spec: dict, pool: list[dict], since: str) -> list[dict]:
    """Decode-rejects, invalid.tuple-length, objects: for each ColumnType example, the object with its type id
    element or (DECIMAL) its scale element at each length an INT32 element cannot have (`int32_lengths`), and with
    its value element at each length the type cannot have (as tuple-lengths: 1 to the largest + 1 for fixed
    lengths, below the minimum otherwise; bytes `filler`); rules `rules`. For the other types, whose scale element
    Java never reads but .NET and C++ do, a NULL scale element and one of each `int32_lengths`, under
    `scale_other_rules` (implementation-defined). Names: $type, $type_id, $part (type, scale, value), $length."""
    out, filler = [], bytes.fromhex(spec["filler"])
    for t, x in getter_examples(spec).items():
        type_id, scale = bt.int_element(bt.TYPE_IDS[t]), bt.int_element(x["scale"] if t == "DECIMAL" else 0)
        value = bt.element(x)
        lengths = allowed_lengths(t)
        tup = next(c for c in ignite.REGISTRY["column_types"] if c["name"] == t)["tuple"]
        bad_value = [k for k in range(1, max(lengths) + 2) if k not in lengths] if lengths else list(range(1, tup["min_length"]))
        parts = [("type", k, [(type_id * 8)[:k], scale, value]) for k in spec["int32_lengths"]]
        scale_lengths = spec["int32_lengths"] if t == "DECIMAL" else [0] + spec["int32_lengths"]
        parts += [("scale", k, [type_id, (scale * 8)[:k], value]) for k in scale_lengths]
        parts += [("value", k, [type_id, scale, filler * k]) for k in bad_value]
        for part, k, elems in parts:
            names = {"type": t, "type_id": t.lower().replace("_", "-"), "part": part, "length": k, "since": since}
            rules = spec["scale_other_rules"] if part == "scale" and t != "DECIMAL" else spec["rules"]
            out.append({**reject({**spec, "rules": rules}, names, "3.0", bt.bin_(bt.tuple_bytes(elems)),
                                 "invalid.tuple-length"), "format": "object"})
    return out


# --- the reserved byte in every position where a value starts ----------------------------------
def walk(data: bytes):
    """(start, end, position) of every value in a complete, well-formed byte string (generator-made, so
    trusted); position names the place: "top-level value 2", "item 3 of array16", "key 1 of fixmap".
    Ext, str and bin payloads are opaque: a c1 there is data (or, in a str, invalid UTF-8)."""
    found = []

    def value_at(pos: int, where: str) -> int:
        start, b = pos, data[pos]
        count, kind = None, None
        if b <= 0x7F or b >= 0xE0 or b in (0xC0, 0xC2, 0xC3):
            end = pos + 1
        elif 0x80 <= b <= 0x9F:
            kind = "map" if b < 0x90 else "array"
            form, count, end = "fix" + kind, b & 0x0F, pos + 1
        elif b in (0xDC, 0xDD, 0xDE, 0xDF):
            size = 2 if b in (0xDC, 0xDE) else 4
            kind = "array" if b in (0xDC, 0xDD) else "map"
            form = kind + ("16" if size == 2 else "32")
            count, end = int.from_bytes(data[pos + 1:pos + 1 + size], "big"), pos + 1 + size
        elif 0xA0 <= b <= 0xBF:
            end = pos + 1 + (b & 0x1F)
        elif b in (0xD9, 0xDA, 0xDB, 0xC4, 0xC5, 0xC6):
            size = {0xD9: 1, 0xDA: 2, 0xDB: 4, 0xC4: 1, 0xC5: 2, 0xC6: 4}[b]
            end = pos + 1 + size + int.from_bytes(data[pos + 1:pos + 1 + size], "big")
        elif b in (0xC7, 0xC8, 0xC9):
            size = {0xC7: 1, 0xC8: 2, 0xC9: 4}[b]
            end = pos + 2 + size + int.from_bytes(data[pos + 1:pos + 1 + size], "big")
        elif 0xD4 <= b <= 0xD8:
            end = pos + 2 + (1 << (b - 0xD4))
        elif b in (0xCA, 0xCB, 0xCC, 0xCD, 0xCE, 0xCF, 0xD0, 0xD1, 0xD2, 0xD3):
            end = pos + 1 + {0xCA: 4, 0xCB: 8, 0xCC: 1, 0xCD: 2, 0xCE: 4, 0xCF: 8, 0xD0: 1, 0xD1: 2, 0xD2: 4, 0xD3: 8}[b]
        else:
            raise SourceError(f"walk: byte {b:02x} at {pos} does not start a value")
        index = len(found)
        found.append([start, None, where])
        if kind == "array":
            for i in range(count):
                end = value_at(end, f"item {i} of {form}")
        elif kind == "map":
            for i in range(count):
                end = value_at(end, f"key {i} of {form}")
                end = value_at(end, f"value {i} of {form}")
        found[index][1] = end
        return end

    pos, n = 0, 0
    while pos < len(data):
        pos = value_at(pos, f"top-level value {n}")
        n += 1
    if pos != len(data):
        raise SourceError("walk: the values overrun the bytes")
    return [tuple(f) for f in found]


def reserved(spec: dict, pool: list[dict], since: str) -> list[dict]:
    """c1 in place of each value of an encoding (canonical and, with `variants: true`, each variant) of
    at most `max_length` bytes. Everything before the c1 is a valid prefix and the counts still hold, so
    the c1 is the one defect: malformed.reserved. A value that is the whole input is skipped (that is
    just `c1`). Names: $source, $variant, $label, $offset, $position."""
    out = []
    for v in select(pool, spec, single=False):
        for suffix, label, data in encodings(v, spec.get("variants", False)):
            if len(data) > spec["max_length"]:
                continue
            for start, end, position in walk(data):
                if start == 0 and end == len(data):
                    continue
                names = {"source": v["id"], "variant": suffix, "label": label, "offset": start,
                         "position": position, "since": later(since, v["since"])}
                out.append(reject(spec, names, v["era"], data[:start] + RESERVED + data[end:], "malformed.reserved"))
    return out


# --- wrong payload lengths for every Ignite ext code in every era --------------------------------
def ext_lengths(spec: dict, pool: list[dict], since: str) -> list[dict]:
    """For each registry ext type and each era that assigns it: a fixed layout of length L gets every
    length 0..L+1 except L, a variable layout of minimum m every length 0..m-1, each in every container
    that holds it. The payload is a prefix of the `examples` value's payload (or that payload padded with
    00), so only the length is wrong. Names: $era, $type, $code, $length, $form."""
    out = []
    for ext in ignite.REGISTRY["ext_types"]:
        for era, layout_id in ext["layouts"].items():
            layout = ignite.LAYOUTS[layout_id]
            if layout["value_type"] not in spec["examples"]:
                raise KeyError(f"no example value for {layout['value_type']!r}: add one under derive: ext-lengths: "
                               "examples: (its payload is cut or padded to each wrong length)")
            example = spec["examples"][layout["value_type"]]
            full = ignite.PAYLOAD[layout_id](value(example, {}, era))
            if layout["payload"] == "fixed":
                lengths = [n for n in range(layout["length"] + 2) if n != layout["length"]]
            else:
                lengths = list(range(layout["min_length"]))
            for n in lengths:
                payload = full[:n] + b"\x00" * max(0, n - len(full))
                for form in wire.ext_forms_holding(n):
                    names = {"era": era, "type": layout["value_type"].replace("_", "-"), "code": ext["code"],
                             "length": n, "form": form, "since": since}
                    out.append(reject(spec, names, era, wire.ext(ext["code"], payload, form), "invalid.ext-length"))
    return out


KINDS = {"truncations": truncations, "tuple-truncations": tuple_truncations, "as-objects": as_objects,
         "decimal-columns": decimal_columns, "tuple-lengths": tuple_lengths, "reserved": reserved,
         "ext-lengths": ext_lengths, "getter-widths": getter_widths, "getter-offsets": getter_offsets,
         "getter-object-lengths": getter_object_lengths}


def derive(source: dict, path: str, pool: list[dict]) -> list[dict]:
    out = []
    for spec in source.get("derive", []):
        kind = spec.get("kind")
        if kind not in KINDS:
            raise SourceError(f"{path}: unknown derivation kind {kind!r} (known: {', '.join(KINDS)})")
        try:
            out += KINDS[kind](spec, pool, str(spec.get("since", source["since"])))   # an entry may be newer
        except (KeyError, ValueError) as e:
            raise SourceError(f"{path}: derive {kind}: {e!r}") from e
    return out
