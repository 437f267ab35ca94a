"""A fuzz finding as a case source (the YAML of generator/sources/*.yaml, read by generator/sources.py).

After review the file moves into generator/sources/ and `make vectors` turns it into golden vectors.
"""

import hashlib
import json

import yaml

from generator import ignite

from fuzz import frames

TYPE_RULE = {"nil": "MP-NIL", "bool": "MP-BOOL", "int": "MP-INT-CANON", "float32": "MP-FLOAT-WIDTH",
             "float64": "MP-FLOAT-WIDTH", "str": "MP-STR-UTF8", "bin": "MP-BIN-CANON", "array": "MP-ARRAY-CANON",
             "map": "MP-MAP-CANON", "ext": "MP-EXT-CANON", "number": "EXT-NUMBER", "date": "EXT-DATE",
             "time": "EXT-TIME", "datetime": "EXT-DATETIME", "timestamp": "EXT-TIMESTAMP",
             "bitmask": "EXT-BITMASK", "ignite_uuid": "EXT-IGNITE-UUID", "no_value": "EXT-NO-VALUE"}
REJECT_RULE = {"int": "MP-INT-RANGE", "ext": "MP-EXT-CODE"}


def rule_for(value, era, must_refuse):
    t = value["type"]
    if must_refuse:
        if t in REJECT_RULE:
            return REJECT_RULE[t]
        try:
            ignite.ext_code(t, era)
        except ignite.Invalid:
            return "EXT-ERA"
    if t == "decimal":
        return "EXT-DECIMAL-VARINT" if era == "alpha5" else "EXT-DECIMAL-I32"
    if t == "uuid":
        return "EXT-UUID-LE" if era in ("beta1", "3.0") else "EXT-UUID-BE"
    return TYPE_RULE[t]


def notation(value):
    """Typed value -> the short notation of generator/sources.py (its value() reads it back)."""
    t = value["type"]
    if t == "nil":
        return "nil"
    if t == "bool":
        return value["value"]
    if t == "int":
        return {"int": value["value"]}
    if t in ("float32", "float64"):
        return {f"{t}_bits": value["bits"]}
    if t == "str":
        text = value["value"]
        if len(text) > 16 and len(set(text)) == 1:
            return {"str": {"repeat": _dollar(text[0]), "count": len(text)}}
        return {"str": _dollar(text)}
    if t == "bin":
        hex_ = value["hex"]
        if len(hex_) > 32 and len(set(hex_[i:i + 2] for i in range(0, len(hex_), 2))) == 1:
            return {"bin": {"repeat": hex_[:2], "count": len(hex_) // 2}}
        return {"bin": hex_}
    if t == "array":
        return {"array": [notation(v) for v in value["items"]]}
    if t == "map":
        return {"map": [[notation(k), notation(v)] for k, v in value["entries"]]}
    if t == "ext":
        return {"ext": {"code": value["code"], "hex": value["hex"]}}
    fields = {"number": lambda v: v["value"], "decimal": lambda v: [v["unscaled"], v["scale"]],
              "uuid": lambda v: v["value"], "date": lambda v: [v["year"], v["month"], v["day"]],
              "time": lambda v: [v["hour"], v["minute"], v["second"], v["nano"]],
              "datetime": lambda v: [v[k] for k in ("year", "month", "day", "hour", "minute", "second", "nano")],
              "timestamp": lambda v: [v["seconds"], v["nano"]], "bitmask": lambda v: v["bits"],
              "ignite_uuid": lambda v: [v["global"], v["local"]], "no_value": lambda v: None}
    return {t: fields[t](value)}


def _dollar(text):
    # sources.py runs every string through string.Template: '$$' is how a literal '$' survives.
    return text.replace("$", "$$")


def short_hash(era, value):
    return hashlib.sha256(json.dumps([era, value], sort_keys=True).encode()).hexdigest()[:10]


def source(era, value, vector, cut, failures, seed, since):
    """The case source dict for one minimal failing element; vector and cut are what check.vectors() built."""
    h = short_hash(era, value)
    summary = "; ".join(sorted({f"{f.runner} {f.op}: {f.outcome.verdict}: {f.outcome.detail}" for f in failures}))
    found = f"Found by make fuzz (seed {seed}), shrunk by Hypothesis: {summary}"
    out = {"family": f"fuzz-{h}", "description": f"Fuzz regression {h}: one value the runners disagreed on.",
           "era": era, "since": since}
    if vector.get("format") == "frame":   # a message (fuzz/frames.py): a frame source, fields in its notation
        case = {"id": f"fuzz.{h}", "description": found, **frames.source_case(value, vector, notation, _dollar)}
        out.update(format="frame", description=f"Fuzz regression {h}: one frame the runners disagreed on.")
        cut_case = {"frame": value["frame"], "features": value["features"], "rules": ["FR-LENGTH"]}
    else:
        case = {"id": f"fuzz.{h}", "description": found, "rules": [rule_for(value, era, vector["kind"] == "encode-reject")],
                "value": notation(value)}
        cut_case = {"rules": ["GEN-TRUNC"]}
    if vector["kind"] == "encode-reject":
        out["encode_rejects"] = [{**case, "error": vector["error"]}]
    else:
        out["cases"] = [case]
        if cut and any(f.op == "reject" for f in failures):
            out["rejects"] = [{"id": f"fuzz.{h}.truncated", "description": f"A strict prefix of fuzz.{h}: {found}",
                               **cut_case, "bytes": cut["hex"], "error": "malformed.truncated"}]
    return out


def dump(source_dict):
    return yaml.safe_dump(source_dict, sort_keys=False, allow_unicode=False, width=120)
