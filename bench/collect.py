"""Joins the languages' results into one table (bench/out/bench.md, bench/out/bench.json).

    /usr/bin/python3 bench/collect.py bench/out

Reads <out>/<runner>.jsonl for each runner of runners/*/runner.json (one JSON line per case/op/path) and cpp.json (Google
Benchmark's JSON with repetitions; the median, min and max of its per-repetition items_per_second are taken
here, as the other languages do).
"""
import json
import platform
import os
import statistics
import sys
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LANGS = sorted(p.parent.name for p in (ROOT / "runners").glob("*/runner.json"))     # as the Makefile finds them
CASE_ORDER = ["primitives", "sql-request", "pojo-named", "pojo-positional", "person"]
SEED_SIZES = "protobuf-net 1048, Ignite raw 1067, Ignite 1076"


def load(out):
    rows = []
    for lang in LANGS:      # cpp writes cpp.json (below)
        path = out / f"{lang}.jsonl"
        if path.exists():
            rows += [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    cpp = out / "cpp.json"
    if cpp.exists():
        g = json.loads(cpp.read_text())
        reps = {}
        for b in g["benchmarks"]:
            if b.get("run_type") == "iteration":
                reps.setdefault(b["run_name"], []).append(b)
        for name, bs in reps.items():
            case, op, path = name.split("/")
            rates = sorted(b["items_per_second"] for b in bs)
            rows.append({"lang": "cpp", "library": "nlohmann/json 3.11.2 (+ msgpack-c in the typed path)",
                         "timer": "Google Benchmark, repetitions, CPU time", "case": case, "op": op, "path": path,
                         "bytes": int(bs[0]["bytes"]), "median": statistics.median(rates), "min": rates[0],
                         "max": rates[-1], "n": len(rates)})
    return rows


def human(x):
    return f"{x / 1e6:.2f} M" if x >= 1e6 else f"{x / 1e3:.0f} k"


def cell(r):
    if r is None:
        return "-"
    lo = 100 * (r["min"] - r["median"]) / r["median"]
    hi = 100 * (r["max"] - r["median"]) / r["median"]
    return f"{human(r['median'])} ({lo:+.0f}/{hi:+.0f} %)"


def main():
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "bench/out")
    rows = load(out)
    if not rows:
        sys.exit(f"no results in {out}")
    sizes = json.loads((Path(__file__).parent / "build/cases.json").read_text())
    by = {(r["lang"], r["case"], r["op"], r["path"]): r for r in rows}
    keys = sorted({(r["case"], r["op"], r["path"]) for r in rows},
                  key=lambda k: (CASE_ORDER.index(k[0]), ["write", "read", "roundtrip"].index(k[1]), k[2]))
    langs = [lang for lang in LANGS if any(r["lang"] == lang for r in rows)]
    libs = {r["lang"]: (r["library"], r["timer"]) for r in rows}
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), "?")
    date = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    md = [f"Measured {date} on {os.cpu_count()} cores ({cpu}), {platform.platform()}; CPU time per op, "
          "median of the repeats (min/max relative to the median in brackets). 'plain' = the library's own API on "
          "native values; 'typed' = the runner's type-directed codec on typed values (schema/value.schema.json).", "",
          "| case | op | path | bytes | " + " | ".join(langs) + " |",
          "|---|---|---|---|" + "---|" * len(langs)]
    for case, op, path in keys:
        size = next(r["bytes"] for r in rows if r["case"] == case)
        md.append(f"| {case} | {op} | {path} | {size} | " +
                  " | ".join(cell(by.get((lang, case, op, path))) for lang in langs) + " |")
    md += ["", "Ratios (median ops/s): typed ÷ plain in each language, and each language's plain path ÷ C++'s "
           "plain path.", "",
           "| case | op | " + " | ".join(f"{lang} typed÷plain" for lang in langs) + " | " +
           " | ".join(f"{lang}÷cpp (plain)" for lang in langs if lang != "cpp") + " |",
           "|---|---|" + "---|" * (2 * len(langs) - ("cpp" in langs)) ]
    for case, op in dict.fromkeys((c, o) for c, o, _ in keys):
        ratio = []
        for lang in langs:
            t, p = by.get((lang, case, op, "typed")), by.get((lang, case, op, "plain"))
            ratio.append(f"{t['median'] / p['median']:.2f}" if t and p else "-")
        base = by.get(("cpp", case, op, "plain"))
        for lang in langs:
            if lang != "cpp":
                p = by.get((lang, case, op, "plain"))
                ratio.append(f"{p['median'] / base['median']:.2f}" if p and base else "-")
        md.append(f"| {case} | {op} | " + " | ".join(ratio) + " |")
    c, s = sizes["cases"], sizes["sizes"]
    md += ["", "Encoded sizes (every language's plain and typed paths wrote exactly these bytes; checked before "
           "timing):", "", "| value | bytes here | seed's figures |", "|---|---|---|",
           f"| primitives (9 values) | {c['primitives']['size']} | - |",
           f"| IEP-75 SQL request | {c['sql-request']['size']} | 54 |",
           f"| Car POJO with field names (map) | {c['pojo-named']['size']} | - |",
           f"| Car POJO without field names (array) | {c['pojo-positional']['size']} | - |",
           f"| Ignite.NET Person, array, canonical | {c['person']['size']} | {SEED_SIZES} |",
           f"| Person, Java client's string headers | {s['person-java-headers']} | |",
           f"| Person, .NET client's string headers | {s['person-dotnet-headers']} | |",
           f"| Person with field names (map) | {s['person-named']} | |",
           "", "Libraries and timers: " + "; ".join(f"{lang}: {lib} ({timer})" for lang, (lib, timer) in libs.items())
           + "."]
    text = "\n".join(md) + "\n"
    (out / "bench.md").write_text(text)
    (out / "bench.json").write_text(json.dumps({"date": date, "rows": rows, "sizes": sizes}, indent=1) + "\n")
    print(text)


if __name__ == "__main__":
    main()
