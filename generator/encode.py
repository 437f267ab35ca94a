"""Typed value (schema/value.schema.json) -> canonical bytes, and the other encodings a decoder must accept."""
import uuid as uuidlib

from . import ignite, wire


def canonical(value: dict) -> bytes:
    t = value["type"]
    if t == "nil":
        return wire.NIL
    if t == "bool":
        return wire.TRUE if value["value"] else wire.FALSE
    if t == "int":
        number = int(value["value"])
        if not wire.INT_MIN <= number <= wire.INT_MAX:
            raise ignite.Invalid("unrepresentable", f"integer {number} is outside -2^63 .. 2^64-1")
        return wire.integer(number)
    if t == "float32":
        return wire.float32(int(value["bits"], 16))
    if t == "float64":
        return wire.float64(int(value["bits"], 16))
    if t == "str":
        data = value["value"].encode("utf-8")  # strict: a lone surrogate raises
        return wire.str_header(len(data)) + data
    if t == "bin":
        data = bytes.fromhex(value["hex"])
        return wire.bin_header(len(data)) + data
    if t == "array":
        return wire.array_header(len(value["items"])) + b"".join(canonical(v) for v in value["items"])
    if t == "map":
        return wire.map_header(len(value["entries"])) + b"".join(canonical(k) + canonical(v) for k, v in value["entries"])
    if t == "ext":
        if not -128 <= value["code"] <= 127:
            raise ignite.Invalid("unrepresentable", f"ext code {value['code']} is outside -128..127")
        return wire.ext(value["code"], bytes.fromhex(value["hex"]))
    code, _layout, payload = ignite.payload(value)
    return wire.ext(code, payload)


def java_str_form(text: str) -> str:
    """Header the Java client writes: sized from 3 x UTF-16 length (apache/ignite-3@6ee89ad5611 ClientMessagePacker.packString)."""
    return wire.smallest(wire.STR_HEADERS, 3 * utf16_length(text))


def dotnet_str_form(text: str) -> str:
    """Header the .NET client writes: sized from Encoding.UTF8.GetMaxByteCount(n) = 3 x (n + 1) (MsgPackWriter.Write(string))."""
    return wire.smallest(wire.STR_HEADERS, 3 * (utf16_length(text) + 1))


def utf16_length(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def variants(value: dict) -> list[dict]:
    """Non-canonical encodings of one top-level value that decoders MUST accept (only the outermost
    header or payload varies: combinations inside nested values add nothing a decoder reads differently)."""
    t = value["type"]
    out = []

    def add(label, data, why, rule, may_emit=False):
        out.append({"label": label, "hex": data.hex(), "why": why, "rules": [rule], "encoder_may_emit": may_emit})

    if t == "int":
        number = int(value["value"])
        canonical_form = wire.int_canonical_form(number)
        for form in wire.int_forms_holding(number):
            if form != canonical_form:
                add(form, wire.int_form(form, number), f"the same integer as {form}", "MP-INT-WIDE")
    elif t == "str":
        data = value["value"].encode("utf-8")
        smallest = wire.smallest(wire.STR_HEADERS, len(data))
        producers = {}
        for name, form in (("java", java_str_form(value["value"])), ("dotnet", dotnet_str_form(value["value"]))):
            if form != smallest:
                producers.setdefault(form, []).append(name)
        for form in wire.forms_holding(wire.STR_HEADERS, len(data)):
            if form == smallest:
                continue
            who = producers.get(form)
            why = f"{form} header" + (f"; the header the {' and '.join(who)} client{'s' if len(who) > 1 else ''} write{'' if len(who) > 1 else 's'} (producer profile)" if who else "")
            add(form, wire.str_header(len(data), form) + data, why, "MP-STR-HEADER" if who else "MP-STR-WIDE", bool(who))
    elif t == "bin":
        data = bytes.fromhex(value["hex"])
        for form in wire.forms_holding(wire.BIN_HEADERS, len(data))[1:]:
            add(form, wire.bin_header(len(data), form) + data, f"{form} header", "MP-BIN-WIDE")
    elif t in ("array", "map"):
        table, build = (wire.ARRAY_HEADERS, wire.array_header) if t == "array" else (wire.MAP_HEADERS, wire.map_header)
        count = len(value["items"] if t == "array" else value["entries"])
        body = canonical(value)[len(build(count)):]
        for form in wire.forms_holding(table, count)[1:]:
            add(form, build(count, form) + body, f"{form} header", "MP-ARRAY-WIDE" if t == "array" else "MP-MAP-WIDE")
    elif t == "ext":
        payload = bytes.fromhex(value["hex"])
        for form in wire.ext_forms_holding(len(payload))[1:]:
            add(form, wire.ext(value["code"], payload, form), f"{form} container", "MP-EXT-WIDE")
    elif t not in ("nil", "bool", "float32", "float64"):
        code, layout, payload = ignite.payload(value)
        if layout != "no-value":  # Java's tryUnpackNoValue recognises only d4 0a (spec EXT-NO-VALUE)
            for form in wire.ext_forms_holding(len(payload))[1:]:
                add(form, wire.ext(code, payload, form), f"{form} container", "EXT-CONTAINER")
        for label, other, why, rule in ignite.payload_variants(value, layout):
            add(label, wire.ext(code, other), why, rule)
    return out


def uuid_text(raw: bytes) -> str:
    return str(uuidlib.UUID(bytes=raw))
