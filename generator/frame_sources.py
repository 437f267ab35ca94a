"""Frame case sources (generator/sources/frame-*.yaml, top-level `format: frame`) -> vectors (README "Frame sources").

The same conventions as sources.py (foreach / where / let, $name templates, expressions, the value notation, the
`bytes` notation); a case names its message kind (`frame`, default the source's), the negotiated `features` and its
`fields` (or a `base` from the source's `bases`, with `fields` overriding it; a field set to `~` is removed). The
bytes come from frames.py; rejects edit the parts of a valid frame, or give raw `bytes`.
"""
from . import frames, wire
from .sources import RULE_LEVEL, SourceError, as_int, each_case, evaluate, hex_bytes, resolve, subst, value

ERA = "3.0"


# --- the field notation -> typed fields (spec.md 11.1) ------------------------------------------------
def scalar(spec, t: str, names):
    """A field value of simple type t: a bare YAML int / bool / str / uuid text / bitmask bit list, or the value notation."""
    spec = text(spec, names)
    base = t.rstrip("?")
    base = "int" if base == "long" else base   # a long is an int of the wider range (spec 11.1 FR-INT-RANGE)
    if spec == "nil" or spec is None:
        return {"type": "nil"}
    if base == "any" and isinstance(spec, list):   # a field the kind does not have (encode rejects)
        return [value(v, names, ERA) for v in spec]
    if base in ("int", "any") and isinstance(spec, int) and not isinstance(spec, bool):
        return {"type": "int", "value": str(spec)}
    if base == "int" and isinstance(spec, (int, str)) and not isinstance(spec, bool):
        return {"type": "int", "value": str(as_int(subst(spec, names), names))}
    if base == "str" and isinstance(spec, str):
        return {"type": "str", "value": subst(spec, names)}
    if base == "bool" and isinstance(spec, bool):
        return {"type": "bool", "value": spec}
    if base == "uuid" and isinstance(spec, str):
        return {"type": "uuid", "era": ERA, "value": subst(spec, names)}
    if base == "bitmask" and isinstance(spec, list):
        return {"type": "bitmask", "era": ERA, "bits": [as_int(subst(b, names), names) for b in spec]}
    if base == "bin" and isinstance(spec, str):
        return {"type": "bin", "hex": subst(spec, names).replace(" ", "").lower()}
    return value(spec, names, ERA)


def feature_bits(spec, names):
    spec = resolve(spec, names)
    if isinstance(spec, str):
        spec = evaluate(subst(spec, names), names)
    if isinstance(spec, dict) and "as_given" in spec:   # bit indices in the given order (encode rejects: FR-FEATURES)
        return [as_int(subst(b, names), names) for b in resolve(spec["as_given"], names)]
    if isinstance(spec, dict):   # the value notation: a wrong type on purpose (encode rejects)
        return value(spec, names, ERA)
    bits = [frames.FEATURE_BIT[b] if isinstance(b, str) and b in frames.FEATURE_BIT else as_int(subst(b, names), names)
            for b in spec]
    return sorted(set(bits))


def pairs(spec, names):
    spec = text(spec, names)
    if spec == "nil":
        return {"type": "nil"}
    if isinstance(spec, dict):
        return value(spec, names, ERA)
    return [[subst(k, names), value(text(v, names), names, ERA)] for k, v in spec]


def text(spec, names):
    """A bound structure for `$name`, else the string with its `$name`s substituted (a bound "nil" stays nil)."""
    spec = resolve(spec, names)
    return subst(spec, names) if isinstance(spec, str) else spec


def error_object(spec, names):
    spec = text(spec, names)
    if spec == "nil":
        return {"type": "nil"}
    if not isinstance(spec, dict):
        raise SourceError(f"cannot read error object {spec!r}")
    types = dict(frames.ERROR_MEMBERS)
    return {m: pairs(x, names) if types.get(m) == "error-extensions" else scalar(x, types.get(m, "any"), names)
            for m, x in spec.items()}


def field(spec, t: str, names):
    if t == "features":
        return feature_bits(spec, names)
    if t in ("extensions", "error-extensions"):
        return pairs(spec, names)
    if t in ("error", "error-or-nil"):
        spec = resolve(spec, names)
        if isinstance(spec, dict) and len(spec) == 1 and next(iter(spec)) not in dict(frames.ERROR_MEMBERS):
            return value(spec, names, ERA)   # a typed value where the error object belongs (encode rejects)
        if isinstance(spec, list):
            return [value(v, names, ERA) for v in spec]   # an array where the error object belongs (encode rejects)
        return error_object(spec, names)
    if t == "uuid-list":
        spec = resolve(spec, names)
        return [scalar(u, "uuid", names) for u in spec] if isinstance(spec, list) else value(spec, names, ERA)
    if t == "payload":
        spec = resolve(spec, names)
        return [value(v, names, ERA) for v in spec] if isinstance(spec, list) else value(spec, names, ERA)
    return scalar(spec, t, names)


def typed_fields(kind: str, spec: dict, names) -> dict:
    types = {n: t for n, t, _when in frames.LAYOUTS[kind]}
    return {name: field(x, types.get(name, "any"), names) for name, x in spec.items()}


# --- a case -> its message ----------------------------------------------------------------------------------
def message(source: dict, case: dict, names):
    """(kind, features, typed fields) of a case: its base's fields overridden by its own."""
    base = {}
    if "base" in case:
        key = subst(case["base"], names)
        if key not in source.get("bases", {}):
            raise SourceError(f"no base {key!r} in this source's bases")
        base = source["bases"][key]
    kind = subst(case.get("frame", base.get("frame", source.get("frame"))), names)
    if kind not in frames.LAYOUTS:
        raise SourceError(f"unknown frame kind {kind!r}")
    features = [subst(f, names) for f in resolve(case.get("features", base.get("features", source.get("features", []))), names)]
    own = {**resolve(case.get("fields", {}), names), **resolve(case.get("more_fields", {}), names)}
    spec = {**base.get("fields", {}), **{subst(k, names): v for k, v in own.items()}}
    spec = {k: v for k, v in spec.items() if v is not None}
    fields = typed_fields(kind, spec, names)
    if case.get("fit"):   # keep only the fields the flags / error / features give this message (foreach over flags)
        present = {n for n, _t in frames.present_fields(kind, fields, features)}
        fields = {k: v for k, v in fields.items() if k in present}
    return kind, features, fields


CLASSES = {c["class"] for c in frames.ignite.REGISTRY["error_classes"]}


def error_class(case, names) -> str:
    error = subst(case["error"], names)
    if error not in CLASSES:
        raise SourceError(f"error class {error!r} is not in the registry")
    return error


def head(case, names, kind, since, rules) -> dict:
    unknown = [r for r in rules if r not in RULE_LEVEL]
    if unknown:
        raise SourceError(f"unknown rules {unknown}")
    # A value path in an id ("extensions[0].key") reads as "extensions-0.key": ids have no brackets.
    vid = subst(case["id"], names).replace("[", "-").replace("]", "")
    return {"id": vid, "description": subst(case["description"], names), "era": ERA,
            "level": RULE_LEVEL[rules[0]], "rules": rules, "since": since, "kind": kind}


def with_frame(v: dict, frame_kind: str, features) -> dict:
    v["format"] = "frame"
    v["frame"] = frame_kind
    if features:
        v["features"] = list(features)
    return v


def body(ps) -> bytes:
    return b"".join(b for _p, b in ps)


# --- editing the parts of a valid frame (rejects and variants) ---------------------------------------------
def find(ps, path: str) -> int:
    for i, (p, _b) in enumerate(ps):
        if p == path:
            return i
    raise SourceError(f"the frame has no value {path!r} (it has {[p for p, _b in ps]})")


def value_ends(data: bytes) -> list[int]:
    """Where each complete MessagePack value of data ends (a structural walk, no value checks); ValueError when
    data does not end at a value boundary. Guards hand-written bytes in sources: a typo in a header length would
    silently turn a field-type vector into a truncation."""
    fixed = {0xC0: 0, 0xC2: 0, 0xC3: 0, 0xC1: 0, 0xCA: 4, 0xCB: 8, 0xCC: 1, 0xCD: 2, 0xCE: 4, 0xCF: 8,
             0xD0: 1, 0xD1: 2, 0xD2: 4, 0xD3: 8, 0xD4: 2, 0xD5: 3, 0xD6: 5, 0xD7: 9, 0xD8: 17}
    sized = {0xC4: 1, 0xC5: 2, 0xC6: 4, 0xD9: 1, 0xDA: 2, 0xDB: 4}
    at, ends, pending = 0, [], [1]   # pending: values still to read at each nesting level

    def need(n):
        if at + n > len(data):
            raise ValueError(f"{data.hex()}: ends inside a value")
    while at < len(data) or pending[-1] != 1:
        need(1)
        b, at = data[at], at + 1
        items = 0
        if b <= 0x7F or b >= 0xE0 or b in fixed:
            need(fixed.get(b, 0))
            at += fixed.get(b, 0)
        elif 0xA0 <= b <= 0xBF:
            need(b - 0xA0)
            at += b - 0xA0
        elif b in sized or b in (0xC7, 0xC8, 0xC9):
            size = sized.get(b) or {0xC7: 1, 0xC8: 2, 0xC9: 4}[b]
            need(size)
            n = int.from_bytes(data[at:at + size], "big") + (1 if b >= 0xC7 and b <= 0xC9 else 0)
            need(size + n)
            at += size + n
        elif 0x90 <= b <= 0x9F or 0x80 <= b <= 0x8F:
            items = (b & 0x0F) * (2 if b < 0x90 else 1)
        elif b in (0xDC, 0xDD, 0xDE, 0xDF):
            size = 2 if b in (0xDC, 0xDE) else 4
            need(size)
            items = int.from_bytes(data[at:at + size], "big") * (2 if b >= 0xDE else 1)
            at += size
        pending[-1] -= 1
        if items:
            pending.append(items + 1)
        while len(pending) > 1 and pending[-1] == 1:
            pending.pop()
        if len(pending) == 1:
            pending[-1] = 1
            ends.append(at)
    return ends


def edited(ps, edits: dict, names) -> list[tuple[str, bytes]]:
    """set / insert_before / insert_after {path: bytes}, drop [paths], end_at path, append bytes, wrap: array: the
    parts after the edits.
    The bytes set (one value) or inserted (whole values) are checked unless the edit says `partial: true`."""
    ps = list(ps)

    def raw(spec, one=False):
        data = hex_bytes(resolve(spec, names), names, ERA)
        if not edits.get("partial"):
            try:
                ends = value_ends(data)
            except ValueError as e:
                raise SourceError(f"edit bytes are not whole values ({e}); say partial: true if meant") from None
            if one and len(ends) != 1:
                raise SourceError(f"set {data.hex()}: {len(ends)} values in place of one; say partial: true if meant")
        return data
    for path, spec in (edits.get("set") or {}).items():
        i = find(ps, subst(path, names))
        ps[i] = (ps[i][0], raw(spec, one=True))
    for path, spec in (edits.get("insert_before") or {}).items():
        ps.insert(find(ps, subst(path, names)), ("inserted", raw(spec)))
    for path, spec in (edits.get("insert_after") or {}).items():
        ps.insert(find(ps, subst(path, names)) + 1, ("inserted", raw(spec)))
    for path in edits.get("drop") or []:
        del ps[find(ps, subst(path, names))]
    if "end_at" in edits:   # the message ends with this value (a declared size with nothing after it)
        del ps[find(ps, subst(edits["end_at"], names)) + 1:]
    if "append" in edits:
        ps.append(("appended", raw(edits["append"])))
    if edits.get("wrap") == "array":   # the whole message as one array (a header no frame has, FR-SEQ)
        ps = [("wrapped", wire.array_header(len(ps)) + body(ps))]
    return ps


def read_int(data: bytes) -> int:
    """The integer a canonical (or any) MessagePack int encodes."""
    first = data[0]
    if first <= 0x7F or first >= 0xE0:
        return int.from_bytes(data[:1], "big", signed=first >= 0xE0)
    signed = 0xD0 <= first <= 0xD3
    return int.from_bytes(data[1:], "big", signed=signed)


def rewidened(part: bytes, family: str, form: str) -> bytes:
    """A str / bin part with its header in another form (same payload)."""
    table = wire.STR_HEADERS if family == "str" else wire.BIN_HEADERS
    first = part[0]
    if family == "str" and 0xA0 <= first <= 0xBF:
        size = 0
    else:
        size = next(s for _n, f, s, _h in table if f == first)
    length = first - 0xA0 if size == 0 else int.from_bytes(part[1:1 + size], "big")
    return wire.header(table, form, length) + part[1 + size:]


INT_FIRST = set(range(0x00, 0x80)) | set(range(0xE0, 0x100)) | set(range(0xCC, 0xD4))   # the first byte of an int


def variant(ps, spec: dict, names, strict: bool):
    """(label, bytes of the body) of one variant spec, or None (a common variant that does not apply)."""
    ps = list(ps)
    labels = []
    paths = {p for p, _b in ps}
    named = [subst(p, names) for key in ("strs", "bins", "set") for p in (spec.get(key) or {})]
    if "features_pad" in spec:
        named.append("features")
    if not strict and not set(named) <= paths:
        return None   # a common variant for values this message does not have
    for path, form in (spec.get("ints") or {}).items():
        targets = [i for i, (p, b) in enumerate(ps) if b[0] in INT_FIRST and (path == "*" or p == path)]
        if not targets:
            if strict:
                raise SourceError(f"variant: no int value {path!r}")
            return None
        changed = False
        for i in targets:
            n = read_int(ps[i][1])
            if form in wire.int_forms_holding(n):   # "*": the ints the form can hold (int64 holds no uint64 > 2^63-1)
                new = wire.int_form(form, n)
                changed |= new != ps[i][1]
                ps[i] = (ps[i][0], new)
        if not changed:
            if strict:
                raise SourceError(f"variant: {path} is already {form}")
            return None
        labels.append(f"{'ints' if path == '*' else path}.{form}")
    for family in ("strs", "bins"):
        for path, form in (spec.get(family) or {}).items():
            i = find(ps, subst(path, names))
            ps[i] = (ps[i][0], rewidened(ps[i][1], family[:3], form))
            labels.append(f"{path}.{form}")
    if "features_pad" in spec:
        i = find(ps, "features")
        data = ps[i][1][2:] if ps[i][1][0] == 0xC4 else None
        if data is None:
            raise SourceError("variant: features_pad needs a bin8 features value")
        data += b"\x00" * as_int(subst(spec["features_pad"], names), names)
        ps[i] = ("features", wire.bin_header(len(data)) + data)
        labels.append(f"features.{len(data)}-bytes")
    for path, raw in (spec.get("set") or {}).items():
        i = find(ps, subst(path, names))
        ps[i] = (ps[i][0], hex_bytes(resolve(raw, names), names, ERA))
    label = subst(spec.get("label", ""), names) or "+".join(labels).replace("_", "-").replace("[", "-").replace("]", "")
    return label, body(ps)


# --- vectors ------------------------------------------------------------------------------------------------
def value_vector(source, case, names, since):
    kind, features, fields = message(source, case, names)
    rules = subst(case["rules"], names)
    v = with_frame(head(case, names, "value", since, rules), kind, features)
    v["fields"] = fields
    try:
        ps = frames.parts(kind, fields, features)
    except frames.FrameError as e:
        raise SourceError(f"not a valid {kind}: {e.error_class}: {e}") from None
    data = frames.frame(kind, body(ps))
    if "expect" in case and hex_bytes(case["expect"], names, ERA) != data:
        raise SourceError(f"canonical frame is {data.hex()}, the source expects {hex_bytes(case['expect'], names, ERA).hex()}")
    v["canonical"] = data.hex()
    v["variants"] = []
    specs = [(s, False) for s in source.get("common_variants", [])] + [(s, True) for s in case.get("variants", [])]
    for spec, strict in specs:
        if "kinds" in spec and kind not in spec["kinds"]:
            continue
        if "when" in spec and not evaluate(subst(spec["when"], {**names, **flat_ints(fields)}), {**names, **flat_ints(fields)}):
            continue
        made = variant(ps, spec, names, strict)
        if made is None:
            continue
        label, other = made
        v["variants"].append({"label": label, "hex": frames.frame(kind, other).hex(), "why": subst(spec["why"], names),
                              "rules": subst(spec["rules"], names), "encoder_may_emit": bool(spec.get("may_emit", False))})
    return v


def flat_ints(fields) -> dict:
    """The int fields as names for a variant's `when` (e.g. "flags % 8 < 4"); nil fields as -1."""
    return {k: (int(x["value"]) if x.get("type") == "int" else -1) for k, x in fields.items()
            if isinstance(x, dict) and x.get("type") in ("int", "nil")}


def encode_reject_vector(source, case, names, since):
    kind, features, fields = message(source, case, names)
    v = with_frame(head(case, names, "encode-reject", since, subst(case["rules"], names)), kind, features)
    v["fields"] = fields
    v["error"] = expected = error_class(case, names)
    try:
        frames.parts(kind, fields, features)
    except frames.ignite.Invalid as e:   # FrameError (frame.fields, frame.field-type) or a value's (unrepresentable)
        if e.error_class != expected:
            raise SourceError(f"the generator rejects it as {e.error_class} ({e}), the source says {expected}") from None
        return v
    raise SourceError("the generator can encode these fields; it is not an encode-reject")


def reject_frame(source, case, names):
    """(kind, features, frame bytes, parts, fields) of a reject: raw `bytes`, or a valid message edited."""
    if "bytes" in case:
        kind = subst(case.get("frame", source.get("frame")), names)
        features = [subst(f, names) for f in resolve(case.get("features", source.get("features", [])), names)]
        return kind, features, hex_bytes(resolve(case["bytes"], names), names, ERA), None, None
    kind, features, fields = message(source, case, names)
    ps = edited(frames.parts(kind, fields, features), case.get("edit") or {}, names)
    data = body(ps)
    length = None
    if "length" in case:
        length = as_int(subst(case["length"], {**names, "body_length": len(data)}),
                        {**names, "body_length": len(data)})
    magic = hex_bytes(case["magic"], names, ERA) if "magic" in case else None
    out = frames.frame(kind, data, length, magic) + (hex_bytes(resolve(case["after"], names), names, ERA) if "after" in case else b"")
    return kind, features, out, ps, fields


def cut_class(kind, fields, features, ps, k: int, trailing: bool) -> str | None:
    """The class of a frame whose body is the first k bytes of the parts' bytes (spec.md 11.1 steps 4-6):
    inside a value -> malformed.truncated (step 4); between values, the layout unfinished -> malformed.truncated
    (step 5); the message complete -> frame.trailing if bytes follow the frame, else None (a valid frame)."""
    ends, at = [], 0
    for _p, b in ps:
        at += len(b)
        ends.append(at)
    if k != 0 and k not in ends:
        return "malformed.truncated"
    whole = 0 if k == 0 else ends.index(k) + 1
    if whole < frames.complete_after(kind, fields, features, [p for p, _b in ps]):
        return "malformed.truncated"
    return "frame.trailing" if trailing else None


def sweep(source, case, names, since) -> list[dict]:
    """`sweep: prefixes` every strict prefix of the frame (declared length kept: malformed.truncated);
    `sweep: fitted` the body cut at every offset with the length fitted (skipping cuts that leave a valid message);
    `sweep: length` the declared length one less and one more than the body."""
    kind, features, data, ps, fields = reject_frame(source, case, names)
    rules = subst(case["rules"], names)
    out = []

    def add(extra, hexdata, error):
        n = {**names, **extra}
        v = with_frame(head(case, n, "decode-reject", since, rules), kind, features)
        v["hex"], v["error"] = hexdata.hex(), error
        out.append(v)

    mode = case["sweep"]
    if mode == "prefixes":
        for offset in range(len(data)):
            add({"offset": offset, "length": len(data)}, data[:offset], "malformed.truncated")
    elif mode == "fitted":
        full = body(ps)
        for k in range(len(full)):
            error = cut_class(kind, fields, features, ps, k, trailing=False)
            if error:
                add({"offset": k, "length": len(full)}, frames.frame(kind, full[:k]), error)
    elif mode == "length":
        full = body(ps)
        add({"dir": "minus-one"}, frames.frame(kind, full, len(full) - 1),
            cut_class(kind, fields, features, ps, len(full) - 1, trailing=True))
        add({"dir": "plus-one"}, frames.frame(kind, full, len(full) + 1), "malformed.truncated")
    else:
        raise SourceError(f"unknown sweep {mode!r}")
    return out


def decode_reject_vector(source, case, names, since):
    kind, features, data, _ps, _fields = reject_frame(source, case, names)
    v = with_frame(head(case, names, "decode-reject", since, subst(case["rules"], names)), kind, features)
    v["hex"], v["error"] = data.hex(), error_class(case, names)
    return v


def expand(source: dict, path: str) -> list[dict]:
    def build(case, names, kind, era, since):
        if era != ERA:
            raise SourceError(f"frame vectors are era {ERA}")
        if kind == "value":
            return [value_vector(source, case, names, since)]
        if kind == "encode-reject":
            return [encode_reject_vector(source, case, names, since)]
        if "sweep" in case:
            return sweep(source, case, names, since)
        return [decode_reject_vector(source, case, names, since)]
    return [v for vs in each_case(source, path, build) for v in vs]
