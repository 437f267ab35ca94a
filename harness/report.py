"""report.json: the machine-readable result of a run (schema/report.schema.json)."""

import json
from datetime import datetime, timezone

from harness import VERSION, atomic
from harness.results import FAILING, counts_of

REPORT_FORMAT = 1


def build(corpus, registry_version, selection, runs, incomplete=None):
    """runs: [(config, RunnerResult, [Verdict], Advice)]; incomplete: why the run stopped early, if it did."""
    runners, texts, shared = [], Encoded(), shared_pieces()
    for config, result, verdicts, advice in runs:
        info = result.info or {}
        runners.append({
            "name": config.name,
            "language": info.get("language"),
            "library": info.get("library"),
            "library_version": info.get("library_version"),
            "command": config.argv,
            "capabilities": info.get("capabilities"),
            "start_error": result.start_error,
            "restarts": result.restarts,
            "unmet_requirements": list(result.unmet),
            "abandoned": result.abandoned,
            "counts": counts_of(result, verdicts),
            "expectations": {
                "file": str(config.expected_failures),
                "stale": [e.text for e in advice.stale],
                "unchecked": [e.text for e in advice.unchecked],
                "add": advice.add,
                "remove": advice.remove,
            },
        })
        made = getattr(result, "records", None)     # made when the runner's session ended (verify_run)
        texts += made if made is not None else records(verdicts, shared)
    report = {
        "report_format": REPORT_FORMAT,
        "harness_version": VERSION,
        "timestamp": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "corpus": {
            "registry_version": registry_version,
            "version": corpus.version,
            "files": corpus.files,
            "selection": selection,
        },
        "runners": runners,
        "verdicts": texts,
        "totals": totals(runs),
    }
    if incomplete:
        missing = selection["ops"] * len(runs) - len(texts)
        report["incomplete"] = {"reason": incomplete, "missing": missing}
    return report


def record(v):
    """A verdict's record in report.json."""
    return {"runner": v.runner, "vector": v.vector, "op": v.op, "verdict": v.verdict, "outcome": v.outcome,
            "level": v.level, "rules": v.rules, "era": v.era, "detail": v.detail, "diagnosis": v.diagnosis,
            "answer": v.answer, "matched": v.matched, "expectation": v.expectation}


class Encoded(list):
    """Values' JSON texts, made already: write_layered writes each, one per line. An item is the text, or a tuple of
    the pieces it is joined from (records(): most records share all their pieces with others)."""

    def texts(self, start=0, stop=None):
        """The texts of the items from start to stop, each joined from its pieces."""
        return [t if type(t) is str else "".join(t) for t in self[start:stop]]


def shared_pieces():
    """The caches records() shares between runners (dicts: threads may use them at once)."""
    return {}, {}, {}


def records(verdicts, shared):
    """The report.json records of verdicts whose expectations are applied, as build() writes them:
    [_compact(record(v))] for the verdicts. Most records differ only in runner, vector and op: their text is
    joined from pieces encoded once per run (a dict and an encode per verdict were most of a report's cost), and
    is kept as the tuple of those pieces until it is written (a tuple of shared strings is a fifth of the text's
    size: 170,000 records of a full run kept as texts held 70 MB)."""
    out, head = [], '{"runner": ' + _string(verdicts[0].runner) if verdicts else ""
    ops, kinds, rests = shared
    for v in verdicts:
        if v.diagnosis:
            out.append(_compact(record(v)))
            continue
        op = ops.get((v.vector, v.op))
        if op is None or op[0] is not v.rules or op[1] != v.level or op[2] != v.era:
            op = (v.rules, v.level, v.era, ', "vector": ' + _string(v.vector) + ', "op": ' + _string(v.op),
                  ', "level": ' + _compact(v.level) + ', "rules": ' + _compact(v.rules) + ', "era": '
                  + _compact(v.era))
            _keep(ops, (v.vector, v.op), op)
        kind = kinds.get((v.verdict, v.outcome))
        if kind is None:
            kind = ', "verdict": ' + _string(v.verdict) + ', "outcome": ' + _string(v.outcome)
            _keep(kinds, (v.verdict, v.outcome), kind)
        key = (v.detail, v.answer, v.matched, v.expectation)
        rest = rests.get(key)
        if rest is None:
            rest = (', "detail": ' + _compact(v.detail) + ', "diagnosis": [], "answer": ' + _compact(v.answer)
                    + ', "matched": ' + _compact(v.matched) + ', "expectation": ' + _compact(v.expectation) + "}")
            _keep(rests, key, rest)
        out.append((head, op[3], kind, op[4], rest))
    return out


MAX_SHARED = 1 << 16    # pieces kept per kind


def _keep(cache, key, text):
    if len(cache) < MAX_SHARED:
        cache[key] = text


def totals(runs):
    passed = failed = unclaimed = coarse = checked = 0
    for _, result, verdicts, advice in runs:
        c = counts_of(result, verdicts)
        passed += c["pass"] + c["coarse"] + c["xfail"] + c["info"]
        failed += sum(c[k] for k in FAILING)
        failed += len(advice.stale) + len(result.unmet)
        unclaimed += c["unclaimed"]
        coarse += c["coarse"]
        checked += sum(c.values()) - c["unclaimed"]
    return {"passed": passed, "failed": failed, "unclaimed": unclaimed, "coarse": coarse, "checked": checked}


def write(path, report):
    def to(tmp):
        with open(tmp, "w", encoding="utf-8") as f:
            write_layered(f.write, report, LAYERS)
            f.write("\n")
    atomic.write(path, to)


LAYERS = 2      # the report's fields, then each verdict (and each runner, corpus file) on a line of its own
# C's encoder made once (JSONEncoder.encode builds one per call): ensure_ascii off, no circular check.
_c_encode = json.encoder.c_make_encoder(None, None, json.encoder.encode_basestring, None, ": ", ", ", False, False,
                                        True) if json.encoder.c_make_encoder else None
_py_compact = json.JSONEncoder(ensure_ascii=False, separators=(", ", ": "), check_circular=False).encode


_string = json.encoder.encode_basestring     # what _compact gives for a str


def _compact(value):
    if _c_encode is None or isinstance(value, (str, int, float)) or value is None:
        return _py_compact(value)
    return "".join(_c_encode(value, 0))


CHUNK = 1024    # lines joined per write: a full report is 50 MB; one string of it would be copied several times


def layered_json(value, layers, indent=""):
    """JSON indented for the outer `layers` levels and written on one line below them. json.dump with indent runs
    the pure-Python encoder over every verdict (seconds on a full run); this keeps the report readable line by
    line while C's encoder writes all but the outer levels. json.loads gives the same value either way."""
    parts = []
    write_layered(parts.append, value, layers, indent)
    return "".join(parts)


def write_layered(write, value, layers, indent=""):
    """layered_json(value, layers, indent), handed to write() in pieces (never the whole text at once)."""
    if type(value) is Encoded and value:
        inner = indent + " "
        write("[\n" + inner)
        sep = ",\n" + inner
        for start in range(0, len(value), CHUNK):
            write((sep if start else "") + sep.join(value.texts(start, start + CHUNK)))
        write("\n" + indent + "]")
        return
    if layers == 0 or not isinstance(value, (dict, list)) or not value:
        write(_compact(value))
        return
    inner = indent + " "
    if isinstance(value, dict):
        write("{\n")
        for n, (k, v) in enumerate(value.items()):
            write((",\n" + inner if n else inner) + _compact(k) + ": ")
            write_layered(write, v, layers - 1, inner)
        write("\n" + indent + "}")
        return
    write("[\n")
    if layers == 1:     # the innermost layer: items one per line, CHUNK lines per write
        sep = ",\n" + inner
        for start in range(0, len(value), CHUNK):
            write((sep if start else inner) + sep.join(map(_compact, value[start:start + CHUNK])))
    else:
        for n, v in enumerate(value):
            write(",\n" + inner if n else inner)
            write_layered(write, v, layers - 1, inner)
    write("\n" + indent + "]")
