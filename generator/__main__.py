"""make vectors: regenerate vectors/ from generator/sources/.  --check: fail if vectors/ differs (drift)."""
import argparse
import json
import sys
from pathlib import Path

import yaml

from . import ignite, manifest, node_cases
from .derive import derive
from .expand import expand
from .sources import SourceError

ROOT = Path(__file__).resolve().parent.parent
SOURCES, VECTORS = ROOT / "generator" / "sources", ROOT / "vectors"


def render() -> dict[str, str]:
    """File name -> exact text of every corpus file (deterministic: no clocks, sorted nothing implicitly)."""
    sources = []
    for path in sorted(SOURCES.glob("*.yaml")):
        rel = path.relative_to(ROOT).as_posix()
        try:
            source = yaml.safe_load(path.read_text(encoding="utf-8"))
        except yaml.YAMLError as e:
            raise SourceError(f"{rel}: {e}") from None
        sources.append((rel, source, expand(source, rel)))
    # Derivations read the hand-written corpus: every source without a derive: section.
    # The kinds select MessagePack vectors only, except tuple-truncations (a Binary Tuple's prefixes follow
    # other rules, spec 6.2), which selects its format's.
    pool = [v for _rel, source, vectors in sources if "derive" not in source for v in vectors]
    sources = [(rel, source, vectors + derive(source, rel, pool)) for rel, source, vectors in sources]
    apply_citations(sources)
    kept = drop_duplicates(sources)
    out = {}
    for i, (rel, source, vectors) in enumerate(sources):
        corpus = {"corpus_version": ignite.REGISTRY["corpus_version"], "family": source["family"],
                  "description": source["description"], "source": rel,
                  "vectors": [v for j, v in enumerate(vectors) if (i, j) in kept]}
        name = f"{source['family']}.json"
        if name in out:
            raise SourceError(f"{rel}: family {source['family']!r} is produced by another source too")
        # One vector per line: diffs stay readable and the file stays compact.
        lines = ",\n".join("  " + json.dumps(v, ensure_ascii=False, separators=(",", ":")) for v in corpus["vectors"])
        head = json.dumps({k: v for k, v in corpus.items() if k != "vectors"}, ensure_ascii=False)[:-1]
        out[name] = f'{head}, "vectors": [\n{lines}\n]}}\n'
    if manifest.NAME in out:
        raise SourceError(f"family {manifest.NAME[:-5]!r}: the name is reserved for the corpus manifest")
    out[manifest.NAME] = manifest.render(out)
    return out


JUDGED = ("era", "kind", "format", "columns", "values", "canonical", "hex", "error")


def apply_citations(sources) -> None:
    """`cited:` entries: upstream facts an existing vector already checks. Each entry is a case in its source's
    notation whose `id` names that vector (foreach and templates allowed); the generator builds it, requires the
    named vector to hold exactly the same judged fields (era, kind, format, columns, values, bytes, error) and
    its rules, and appends the entry's `description` (the citation) to the vector's description."""
    by_id = {v["id"]: v for _rel, _source, vectors in sources for v in vectors}
    for rel, source, _vectors in sources:
        for entry in source.get("cited", []):
            section = "rejects" if "error" in entry else "cases"
            mini = {k: source[k] for k in ("family", "era", "since", "format") if k in source}
            mini[section] = [entry]
            for fact in expand(mini, rel):
                target = by_id.get(fact["id"])
                if target is None:
                    raise SourceError(f"{rel}: cited: no vector {fact['id']!r} to carry the citation")
                differ = [k for k in JUDGED if fact.get(k) != target.get(k)]
                missing = [r for r in fact["rules"] if r not in target["rules"]]
                if differ or missing:
                    raise SourceError(f"{rel}: cited: {fact['id']} differs from the cited fact in {differ}"
                                      f"{f' and lacks rules {missing}' if missing else ''}")
                target["description"] += f" Upstream: {fact['description']}"


def drop_duplicates(sources) -> set[tuple[int, int]]:
    """(source index, vector index) of the vectors to write. A source with `skip_duplicates: true` (the
    swept and derived hostile corpus) drops each vector whose era, kind and bytes an earlier vector already
    has. "Earlier" is by `since`, then plain sources before skipping ones, then file and position: a vector
    added in a later corpus version can never displace an existing id. Duplicates among plain sources
    are left for the corpus checks to report."""
    def version(v):
        return tuple(int(x) for x in v["since"].split("."))

    order = sorted(((version(v), bool(source.get("skip_duplicates")), i, j)
                    for i, (_rel, source, vectors) in enumerate(sources) for j, v in enumerate(vectors)))
    seen, kept = set(), set()
    for _version, skipping, i, j in order:
        v = sources[i][2][j]
        key = (v["era"], v["kind"], v.get("canonical") or v.get("hex") or json.dumps(v.get("values", v.get("fields")), sort_keys=True), v.get("nan"),
               v.get("format"), json.dumps(v.get("columns")), v.get("frame"), json.dumps(v.get("features")))
        if skipping and key in seen:
            continue
        seen.add(key)
        kept.add((i, j))
    return kept


def main() -> int:
    parser = argparse.ArgumentParser(prog="python3 -m generator", description=__doc__)
    parser.add_argument("--check", action="store_true", help="compare with vectors/ instead of writing")
    args = parser.parse_args()
    try:
        files = render()
    except SourceError as e:
        print(f"generator: {e}", file=sys.stderr)
        return 1
    existing = {p.name for p in VECTORS.glob("*.json")}
    node_text = node_cases.render()
    if args.check:
        if not node_cases.OUT.exists() or node_cases.OUT.read_text(encoding="utf-8") != node_text:
            print("node/cases.json differs from a fresh build of generator/node/cases.yaml", file=sys.stderr)
            print("run: make vectors   (then review and commit the diff)", file=sys.stderr)
            return 1
        stale = sorted(n for n, text in files.items() if not (VECTORS / n).exists() or (VECTORS / n).read_text(encoding="utf-8") != text)
        extra = sorted(existing - set(files))
        for n in stale:
            print(f"vectors/{n} differs from a fresh regeneration", file=sys.stderr)
        for n in extra:
            print(f"vectors/{n} has no source in generator/sources/", file=sys.stderr)
        if stale or extra:
            print("run: make vectors   (then review and commit the diff)", file=sys.stderr)
            return 1
        return 0
    VECTORS.mkdir(exist_ok=True)
    for n in existing - set(files):
        (VECTORS / n).unlink()
    for n, text in files.items():
        (VECTORS / n).write_text(text, encoding="utf-8")
    count = sum(text.count("\n  {") for text in files.values())
    node_cases.OUT.parent.mkdir(exist_ok=True)
    node_cases.OUT.write_text(node_text, encoding="utf-8")
    print(f"wrote {len(files)} files, {count} vectors to vectors/; {node_text.count(chr(10) + '  {')} node cases to node/cases.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
