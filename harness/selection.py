"""--case / -k / --family: which vectors a run takes, with close-match suggestions and a hint when a -k pattern
looks like a family name but picks few of its vectors."""

import difflib
import fnmatch


class SelectionError(Exception):
    pass


def did_you_mean(word, candidates, n=3):
    """' (did you mean a, b?)' for the closest candidates, or ''."""
    close = difflib.get_close_matches(word, candidates, n=n, cutoff=0.6)
    return f" (did you mean {', '.join(close)}?)" if close else ""


def select(catalog, cases=(), patterns=(), families=(), stderr=None):
    """Sorted ids of the vectors whose id is one of cases, matches one of the fnmatch patterns, or whose family
    matches one of families; every id when nothing is given. Notes go to stderr; an empty selection raises."""
    ids = catalog.ids
    if not cases and not patterns and not families:
        return ids
    known = set(ids)
    chosen = {c for c in cases if c in known}
    for case in cases:
        if case not in known:
            _note(stderr, f"--case {case}: no such vector{did_you_mean(case, ids)}")
    by_family = {}
    for vid in ids:
        by_family.setdefault(catalog.family(vid), []).append(vid)
    for family in families:
        names = fnmatch.filter(by_family, family)
        if not names:
            _note(stderr, f"--family {family}: no such family{did_you_mean(family, list(by_family))} "
                          f"(families: {', '.join(sorted(by_family))})")
        for name in names:
            chosen.update(by_family[name])
    for pattern in patterns:
        hits = fnmatch.filter(ids, pattern)
        chosen.update(hits)
        # '-k float.*' reads like "the float family", but matches ids: say so when the family is much larger.
        stem = pattern.rstrip("*").rstrip(".")
        for name in sorted(set(fnmatch.filter(by_family, pattern)) | ({stem} & set(by_family))):
            if len(hits) < len(by_family[name]):
                _note(stderr, f"-k {pattern} matches {len(hits)} vector id{'s' if len(hits) != 1 else ''}, but "
                              f"the family '{name}' has {len(by_family[name])} vectors (ids there do not all start "
                              f"with '{name}.'): to run the family, use --family {name}")
    if not chosen:
        raise SelectionError("the selection (--case / -k / --family) matches no vector")
    return sorted(chosen)


def _note(stderr, text):
    if stderr is not None:
        print(f"harness: note: {text}", file=stderr)
