"""--require era=3.0,format=binary-tuple,op=encode: capabilities a runner must claim in its start answer;
KEY=* stands for every value protocol.schema.json knows for KEY (make verify requires format=*).

Ops outside a runner's claimed capabilities are 'unclaimed' (not sent, not failing). A required capability the
runner does not claim fails the run, so skipping part of the suite is a visible choice, not a loophole.
"""

from harness import schemas

KEYS = ("era", "format", "op")


class RequireError(Exception):
    pass


def _allowed():
    defs = schemas.load("protocol.schema.json")["$defs"]
    return {"era": defs["era"]["enum"], "format": defs["format"]["enum"], "op": ["encode", "decode"]}


def parse(items):
    """['era=3.0,format=binary-tuple', ...] -> [('era', '3.0'), ('format', 'binary-tuple')] (RequireError if bad)."""
    allowed = _allowed()
    out = []
    for item in items or ():
        for part in item.replace(" ", ",").split(","):
            if not part:
                continue
            key, sep, value = part.partition("=")
            if not sep or key not in KEYS:
                raise RequireError(f"--require {part!r}: expected KEY=VALUE with KEY one of {', '.join(KEYS)} "
                                   f"(e.g. --require era=3.0,format=binary-tuple)")
            if value != "*" and value not in allowed[key]:
                raise RequireError(f"--require {part}: unknown {key} {value!r} (known: {', '.join(allowed[key])}, "
                                   f"or * for all)")
            for one in allowed[key] if value == "*" else (value,):
                if (key, one) not in out:
                    out.append((key, one))
    return out


def claimed(info):
    """{'era': [...], 'format': [...], 'op': [...]} from a start answer's capabilities (formats default msgpack)."""
    caps = (info or {}).get("capabilities") or {}
    return {"era": caps.get("eras", []), "format": caps.get("formats", ["msgpack"]), "op": caps.get("ops", [])}


def unmet(required, info):
    """The required 'key=value' strings the runner does not claim (all of them if it never started)."""
    have = claimed(info)
    return [f"{key}={value}" for key, value in required if value not in have[key]]
