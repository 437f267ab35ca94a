"""Loads the contracts under schema/ and builds validators that resolve their cross-file $refs offline."""

import functools
import json
from pathlib import Path

from harness import fast_schema

# jsonschema is imported where it is used: it costs a quarter of a second, and a run whose answers are all valid
# (and a warm --case rerun) never needs it.

REPO_ROOT = Path(__file__).resolve().parent.parent
SCHEMA_DIR = REPO_ROOT / "schema"


@functools.lru_cache(maxsize=None)
def load(name):
    with open(SCHEMA_DIR / name, encoding="utf-8") as f:
        return json.load(f)


@functools.lru_cache(maxsize=None)
def _store():
    # Every schema's $id maps to its local file, so "value.schema.json" refs never touch the network.
    store = {}
    for path in sorted(SCHEMA_DIR.glob("*.schema.json")):
        schema = load(path.name)
        if "$id" in schema:
            store[schema["$id"]] = schema
    return store


@functools.lru_cache(maxsize=None)
def validator(schema_name, pointer=""):
    """A validator for schema_name, or for the sub-schema at the JSON pointer (e.g. '/$defs/start_response')."""
    import jsonschema

    root = load(schema_name)
    schema = root if not pointer else {"$ref": root["$id"] + "#" + pointer}
    resolver = jsonschema.RefResolver(base_uri=root.get("$id", ""), referrer=root, store=_store())
    cls = jsonschema.validators.extend(jsonschema.validators.validator_for(root), {"pattern": _pattern})
    return cls(schema, resolver=resolver, format_checker=None)


def _pattern(validator_, pattern, instance, schema):
    """jsonschema's 'pattern' keyword, but the hex pattern without a regex (see fast_schema.HEX_PATTERN)."""
    import jsonschema

    if pattern != fast_schema.HEX_PATTERN:
        yield from jsonschema.Draft202012Validator.VALIDATORS["pattern"](validator_, pattern, instance, schema)
    elif validator_.is_type(instance, "string") and not fast_schema.is_hex(instance):
        shown = repr(instance) if len(instance) <= 80 else f"{instance[:40]!r}... ({len(instance)} characters)"
        yield jsonschema.ValidationError(f"{shown} does not match {pattern!r}")   # jsonschema's own words


@functools.lru_cache(maxsize=None)
def fast_check(schema_name, pointer=""):
    """A quick valid/invalid predicate for the same schema as validator(); None if it cannot be compiled."""
    try:
        return fast_schema.Compiler(_store()).compile(load(schema_name)["$id"] + "#" + pointer)
    except fast_schema.Unsupported:
        return None


def is_valid(schema_name, pointer, instance):
    check = fast_check(schema_name, pointer)
    return check(instance) if check else validator(schema_name, pointer).is_valid(instance)


def json_path(error_path):
    """A JSON path like $.vectors[3].values[0] for an error's absolute_path."""
    out = "$"
    for part in error_path:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def describe_errors(validator_, instance, limit=10):
    """Human-readable lines (JSON path: message) for the errors in instance, most specific cause first."""
    lines = []
    errors = sorted(validator_.iter_errors(instance), key=lambda e: list(map(str, e.absolute_path)))
    for error in errors[:limit]:
        cause = _cause(error)
        lines.append(f"{json_path(cause.absolute_path)}: {_short(cause.message)}")
    if len(errors) > limit:
        lines.append(f"... and {len(errors) - limit} more")
    return lines


def first_error(validator_, instance):
    from jsonschema.exceptions import best_match

    error = best_match(validator_.iter_errors(instance))
    if error is None:
        return None
    cause = _cause(error)
    return f"{json_path(cause.absolute_path)}: {_short(cause.message)}"


def _cause(error):
    """The most useful error under a oneOf failure: from the one branch whose const / enum checks passed (the
    branch the instance meant, e.g. its 'kind'), else jsonschema's best match."""
    from jsonschema.exceptions import best_match

    if not error.context:
        return error
    branches = {}
    for e in error.context:
        branches.setdefault(e.relative_schema_path[0], []).append(e)
    fitting = [errs for errs in branches.values() if not any(e.validator in ("const", "enum") for e in errs)]
    return _cause(best_match(fitting[0] if len(fitting) == 1 else error.context))


def _short(message, limit=300):
    return message if len(message) <= limit else message[:limit] + "..."
