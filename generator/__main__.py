"""make vectors: regenerate vectors/ from generator/sources/.  --check: fail if vectors/ differs (drift)."""
import argparse
import json
import sys
from pathlib import Path

import yaml

from . import ignite
from .sources import SourceError, expand

ROOT = Path(__file__).resolve().parent.parent
SOURCES, VECTORS = ROOT / "generator" / "sources", ROOT / "vectors"


def render() -> dict[str, str]:
    """File name -> exact text of every corpus file (deterministic: no clocks, sorted nothing implicitly)."""
    out = {}
    for path in sorted(SOURCES.glob("*.yaml")):
        rel = path.relative_to(ROOT).as_posix()
        try:
            source = yaml.safe_load(path.read_text(encoding="utf-8"))
        except yaml.YAMLError as e:
            raise SourceError(f"{rel}: {e}") from None
        corpus = {"corpus_version": ignite.REGISTRY["corpus_version"], "family": source["family"],
                  "description": source["description"], "source": rel, "vectors": expand(source, rel)}
        name = f"{source['family']}.json"
        if name in out:
            raise SourceError(f"{rel}: family {source['family']!r} is produced by another source too")
        # One vector per line: diffs stay readable and the file stays compact.
        lines = ",\n".join("  " + json.dumps(v, ensure_ascii=False, separators=(",", ":")) for v in corpus["vectors"])
        head = json.dumps({k: v for k, v in corpus.items() if k != "vectors"}, ensure_ascii=False)[:-1]
        out[name] = f'{head}, "vectors": [\n{lines}\n]}}\n'
    return out


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
    if args.check:
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
    print(f"wrote {len(files)} files, {count} vectors to vectors/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
