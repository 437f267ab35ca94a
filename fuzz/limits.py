"""Known library limits the fuzzer tolerates, mirroring the runners' expected-failures.txt entries for the corpus.

A failing op is tolerated only when its runner is listed, the op matches, the answer is the stated one, and the
value has the feature the limit names; anything else is a finding. --strict ignores this table.
"""


def has_non_str_map_key(value):
    if isinstance(value, dict):
        if value.get("type") == "map" and any(k.get("type") != "str" for k, _ in value["entries"]):
            return True
        return any(has_non_str_map_key(v) for v in value.values() if isinstance(v, (dict, list)))
    if isinstance(value, list):
        return any(has_non_str_map_key(v) for v in value)
    return False


# runner -> [(op names, outcome verdict, predicate on the typed value, reason)]
LIMITS = {
    "cpp": [(("decode", "reject"), "skip", has_non_str_map_key,
             "nlohmann's MessagePack reader refuses map keys that are not str (runners/cpp/expected-failures.txt)")],
}


def tolerated(runner, op_name, outcome, value):
    """The reason a failing op is a known limit, or None."""
    base = op_name.split("[")[0]
    for ops, verdict, predicate, reason in LIMITS.get(runner, []):
        if base in ops and outcome.verdict == verdict and value is not None and predicate(value):
            return reason
    return None
