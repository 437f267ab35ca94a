"""Reads the run's report.json, the corpus and the registry, and builds what every report is made from."""

import json
import re
from collections import Counter, defaultdict
from pathlib import Path

from dashboard import hexdump, values
from dashboard.status import FAILING, VERDICTS, nothing_checked, worst

REPO = Path(__file__).resolve().parent.parent
UNKNOWN_FAMILY = "(not in corpus)"


class InputError(Exception):
    """A report, corpus or registry that cannot be read; the message names the file."""


def _read_json(path, what):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise InputError(f"{path}: cannot read the {what}: {e}") from None


def read_report(path):
    report = _read_json(path, "report")
    if not isinstance(report, dict) or report.get("report_format") != 1:
        raise InputError(f"{path}: not a harness report of format 1 (schema/report.schema.json)")
    return report


def read_corpus(path):
    """[(family, [vector])] in file order."""
    path = Path(path)
    paths = sorted(path.glob("*.json")) if path.is_dir() else [path]
    if not paths or not paths[0].exists():
        raise InputError(f"{path}: no corpus files")
    out = []
    for p in paths:
        data = _read_json(p, "corpus file")
        if not isinstance(data, dict) or not isinstance(data.get("vectors"), list):
            continue        # not a corpus file (vectors/manifest.json)
        out.append((data.get("family", p.stem), data["vectors"]))
    if not out:
        raise InputError(f"{path}: no corpus files (JSON files with 'vectors')")
    return out


def build(report, corpus, registry):
    """The page data: plain JSON, everything the dashboard, the summary and the badges show."""
    runner_names = [r["name"] for r in report["runners"]]
    family_of, vectors = {}, {}
    for family, items in corpus:
        for v in items:
            family_of[v["id"]] = family
            vectors[v["id"]] = v

    results = defaultdict(lambda: defaultdict(list))     # vector -> runner -> [verdict record]
    for rec in report["verdicts"]:
        results[rec["vector"]][rec["runner"]].append(rec)

    families = [f for f, _ in corpus]
    if any(vid not in family_of for vid in results):
        families.append(UNKNOWN_FAMILY)
    run_ids = sorted(results)
    page_vectors = [_vector(vid, vectors.get(vid), family_of.get(vid, UNKNOWN_FAMILY), results.get(vid, {}),
                            runner_names)
                    for vid in sorted(set(vectors) | set(results))]
    return {
        "meta": _meta(report, registry),
        "runners": [_runner(r) for r in report["runners"]],
        "families": _families(families, page_vectors, runner_names),
        "vectors": page_vectors,
        "rules": _rules(registry, vectors, results, runner_names),
        "expected_failures": _expected_failures(report),
        "cross": _cross(report.get("matrix")),
        "run_vectors": len(run_ids),
    }


def _cross(matrix):
    """The harness's report.matrix (schema/report.schema.json) in the shape page.js draws: counts per
    verdict and the failing vectors of each (producer, consumer) cell. 'no bytes' cells are not failures."""
    if not matrix:
        return None
    return {"producers": matrix["producers"], "consumers": matrix["consumers"], "cells": [
        {"producer": c["producer"], "consumer": c["consumer"],
         "counts": {k: c[k] for k in ("pass", "fail", "xfail", "fault") if c.get(k)},
         "no_bytes": c.get("no_bytes", 0),
         "failing": [{"vector": v, "verdict": "fail",
                      "detail": f"{c['consumer']} did not read {c['producer']}'s bytes as the vector's values"}
                     for v in c["failing"]] +
                    [{"vector": v, "verdict": "crash",
                      "detail": f"{c['consumer']} crashed, timed out or broke the protocol on {c['producer']}'s bytes"}
                     for v in c.get("faulting", [])]}
        for c in matrix["cells"]]}


def _meta(report, registry):
    corpus = report["corpus"]
    return {
        "report_format": report["report_format"], "harness_version": report["harness_version"],
        "timestamp": report["timestamp"], "corpus_version": corpus["version"],
        "registry_version": corpus["registry_version"], "spec_version": registry.get("spec_version"),
        "registry_corpus_version": registry.get("corpus_version"),
        "selection": corpus["selection"], "files": corpus["files"], "totals": report["totals"],
        "verdict_names": list(VERDICTS),
        "mutation": mutation_score(),
    }


MUTATION_SCORE = REPO / "mutation" / "score.json"
STRYKER_SCORE = REPO / "mutation" / "stryker-score.json"


def mutation_score(path=MUTATION_SCORE, stryker_path=STRYKER_SCORE):
    """The corpus-strength scores `make mutation` commits: the catalogue's (mutation/score.json) with StrykerJS's
    (mutation/stryker-score.json, written by make mutation-stryker) as its `stryker`; None when there is none."""
    score, stryker = _json_or_none(path), _json_or_none(stryker_path)
    if stryker:
        score = {**(score or {}), "stryker": {k: stryker.get(k) for k in
                                              ("score", "score_non_equivalent", "mutants", "date", "corpus_version")}}
    return score


def _json_or_none(path):
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _runner(r):
    counts = {k: r["counts"].get(k, 0) for k in VERDICTS}
    failing = (sum(counts[k] for k in FAILING) + len(r["expectations"]["stale"])
               + len(r.get("unmet_requirements", [])))
    return {**r, "counts": counts, "failing": failing, "nothing_checked": nothing_checked(counts),
            "state": "crash" if r["start_error"] else worst(k for k in VERDICTS if counts[k]) or "none"}


def _vector(vid, vector, family, by_runner, runner_names):
    out = {"id": vid, "family": family, "results": {}, "state": {}}
    for name in runner_names:
        records = by_runner.get(name, [])
        out["state"][name] = worst(r["verdict"] for r in records) or "none"
        # Passing ops need no diagnosis (they have none); failing ones keep everything the harness said.
        out["results"][name] = [_result(r, vector) for r in records]
    if vector is None:
        return {**out, "kind": None, "description": "not in the corpus given to the dashboard", "era": None,
                "level": None, "rules": sorted({x for rs in by_runner.values() for r in rs for x in r["rules"]})}
    out.update({k: vector.get(k) for k in ("kind", "description", "era", "level", "rules", "since", "error", "nan")})
    if "values" in vector:
        out["values"] = values.clip(vector["values"])
    if "fields" in vector:      # a frame vector's message as named fields (spec 11.1)
        out["fields"] = {name: values.clip(field) for name, field in vector["fields"].items()}
    if vector["kind"] == "value":
        out["canonical"] = hexdump.annotated(vector["canonical"], vector=vector)
        out["variants"] = [{"label": v["label"], "why": v["why"], "encoder_may_emit": v["encoder_may_emit"],
                            "bytes": hexdump.annotated(v["hex"], vector=vector)} for v in vector["variants"]]
    elif vector["kind"] == "decode-reject":
        out["input"] = hexdump.annotated(vector["hex"], vector=vector)
    return out


_ACTUAL_BYTES = re.compile(r"^actual bytes \((\d+)\): ([0-9a-f]*)$")
_ACTUAL_VALUES = "actual values:"
_ACTUAL_OUTCOME = "actual outcome:"


def _result(r, vector):
    if r["verdict"] in ("pass", "info") and not r["diagnosis"]:
        # Most records: keep them small (a full run has ~7,000 per runner).
        return {"op": r["op"], "verdict": r["verdict"], "detail": r["detail"],
                **({"matched": r["matched"]} if r["matched"] not in (None, "canonical") else {})}
    return {"op": r["op"], "verdict": r["verdict"], "detail": r["detail"], "matched": r["matched"],
            "expectation": r["expectation"], "answer": r["answer"], "diagnosis": r["diagnosis"],
            **_actual(r, vector)}


def _actual(record, vector):
    """{"actual": ...} with what the runner answered, for a verdict that did not pass; else {}.

    The report has no structured answer yet (only "answer": hex | values | error:<class>), so this reads the
    harness's diagnosis lines, and uses the bytes / values only when they are complete there (not clipped). A
    structured "actual" field ({"hex"} | {"values"} | {"error": {"class", "message"}}) is used when present.
    """
    if record["verdict"] in ("pass", "info"):
        return {}
    given = record.get("actual")
    hex_text = value_list = text = None
    if isinstance(given, dict):
        hex_text, value_list = given.get("hex"), given.get("values")
        if isinstance(given.get("error"), dict):
            text = f"error {given['error'].get('class')} ({given['error'].get('message')})"
    for line in record["diagnosis"] if given is None else ():
        match = _ACTUAL_BYTES.match(line)
        if match and len(match.group(2)) == 2 * int(match.group(1)):
            hex_text = match.group(2)
        elif line.startswith(_ACTUAL_VALUES):
            try:
                value_list = json.loads(line[len(_ACTUAL_VALUES):])
            except ValueError:      # clipped by the harness: the diagnosis text shows it
                pass
        elif line.startswith(_ACTUAL_OUTCOME):
            text = line[len(_ACTUAL_OUTCOME):].strip()
    if hex_text is not None:
        focus = None
        if vector and vector.get("kind") == "value":
            focus = _first_difference(bytes.fromhex(vector["canonical"]), bytes.fromhex(hex_text))
        return {"actual": {"bytes": hexdump.annotated(hex_text, focus, vector=vector), "focus": focus}}
    if value_list is not None:
        return {"actual": {"values": values.clip(value_list)}}
    return {"actual": {"text": text}} if text else {}


def _first_difference(a, b):
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    return None if len(a) == len(b) else min(len(a), len(b))


def _families(families, page_vectors, runner_names):
    rows = []
    for family in families:
        members = [v for v in page_vectors if v["family"] == family]
        cells = {}
        for name in runner_names:
            counts = Counter(r["verdict"] for v in members for r in v["results"][name])
            cells[name] = {"counts": dict(counts), "state": worst(counts) or "none"}
        rows.append({"name": family, "vectors": len(members), "cells": cells})
    return rows


def _rules(registry, vectors, results, runner_names):
    by_rule = defaultdict(list)
    for vid, v in vectors.items():
        for rule in v.get("rules", []):
            by_rule[rule].append(vid)
    known = [r["id"] for r in registry.get("rules", [])]
    rows = []
    for rule in registry.get("rules", []) + [{"id": r, "level": None, "title": "not in schema/registry.json"}
                                             for r in sorted(set(by_rule) - set(known))]:
        ids = sorted(by_rule.get(rule["id"], []))
        state = {}
        for name in runner_names:
            verdicts = [r["verdict"] for vid in ids for r in results.get(vid, {}).get(name, [])]
            state[name] = {"state": worst(verdicts) or "none", "counts": dict(Counter(verdicts))}
        rows.append({"id": rule["id"], "level": rule.get("level"), "title": rule.get("title", ""),
                     "vectors": ids, "state": state, "registered": rule["id"] in known})
    return rows


def _expected_failures(report):
    out = []
    for r in report["runners"]:
        groups = defaultdict(list)
        for rec in report["verdicts"]:
            if rec["runner"] == r["name"] and rec["expectation"]:
                groups[rec["expectation"]].append({"vector": rec["vector"], "op": rec["op"],
                                                   "verdict": rec["verdict"], "detail": rec["detail"]})
        out.append({"runner": r["name"], "file": r["expectations"]["file"],
                    "entries": [{"expectation": k, "matches": v} for k, v in sorted(groups.items())],
                    "stale": r["expectations"]["stale"], "add": r["expectations"]["add"],
                    "remove": r["expectations"]["remove"]})
    return out


