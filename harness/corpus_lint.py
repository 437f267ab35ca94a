"""Corpus semantic lint: what the schema cannot say. Run on every corpus the harness validates (its own or a
foreign one), before anything is sent; a problem refuses the corpus with the file, the vector and the fix.

- A vector id's first dotted segment fits its file's family (harness/id_prefixes.json): a vector filed in the
  wrong family would be selected, listed and reported under the wrong name.
- A typed value's era (Ignite ext types carry one; in `values`, or a frame vector's `fields`) is the vector's era: the runner is told the vector's era, so a
  value of another era describes bytes the request does not ask for.
"""

import functools
import json
from pathlib import Path

SHOWN = 5


@functools.lru_cache(maxsize=None)
def _exceptions():
    with open(Path(__file__).with_name("id_prefixes.json"), encoding="utf-8") as f:
        return json.load(f)["families"]


def allowed_prefixes(family):
    return sorted({family, *family.split("-"), *_exceptions().get(family, [])})


def problems(path, family, vectors):
    """One line per problem in one corpus file: 'FILE: $.vectors[i] (ID): what is wrong'. vectors: [(i, vector)]."""
    allowed = set(allowed_prefixes(family))
    out = []
    for i, vector in vectors:
        vid, where = vector["id"], f"{path}: $.vectors[{i}] ({vector['id']})"
        prefix = vid.split(".", 1)[0]
        if prefix not in allowed:
            out.append(f"{where}: id prefix '{prefix}' does not fit family '{family}' (its ids start with "
                       f"{', '.join(p + '.' for p in sorted(allowed))}; see harness/id_prefixes.json)")
        typed = [(vector.get("values", []), "$.values"), (vector.get("fields", {}), "$.fields")]   # fields: frames
        for at, era in (hit for node, path in typed for hit in _value_eras(node, path)):
            if era != vector["era"]:
                out.append(f"{where}: {at}.era is '{era}' but the vector's era is '{vector['era']}' (the request "
                           f"carries the vector's era)")
    return out


def _value_eras(value, at):
    """(JSON path, era) of every typed value carrying an era, at any depth (iterative: values nest deeply)."""
    stack = [(value, at)]
    while stack:
        node, where = stack.pop()
        if isinstance(node, dict):
            if isinstance(node.get("era"), str) and "type" in node:
                yield where, node["era"]
            stack += [(v, f"{where}.{k}") for k, v in node.items() if isinstance(v, (dict, list))]
        elif isinstance(node, list):
            stack += [(v, f"{where}[{i}]") for i, v in enumerate(node) if isinstance(v, (dict, list))]


def check(corpus, error):
    """Raises error(message) listing the first problems of a loaded corpus (harness.corpus.Corpus)."""
    found = []
    by_file = {}
    for v in corpus.vectors:
        by_file.setdefault(corpus.file_of[v["id"]], []).append((corpus.position_of[v["id"]], v))
    for i, f in enumerate(corpus.files):
        found += problems(f["path"], f["family"], sorted(by_file.get(i, []), key=lambda p: p[0]))
    if found:
        more = [f"... and {len(found) - SHOWN} more"] if len(found) > SHOWN else []
        raise error("the corpus fails the semantic lint (harness/corpus_lint.py):\n  "
                    + "\n  ".join(found[:SHOWN] + more))
