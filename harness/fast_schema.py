"""Compiles the JSON Schema subset our contracts use into plain Python predicates.

Why: jsonschema 4.10 needs ~3 ms per typed value (every value is a 20-way oneOf), far too slow for thousands of
vectors and responses. The compiled predicate only answers valid / invalid; when it says invalid, the caller
asks jsonschema for the readable error, so messages stay jsonschema's. A keyword it does not know raises
Unsupported at compile time (callers then fall back to jsonschema), so a schema change can never be skipped
silently. tests/test_harness_schemas.py checks that it agrees with jsonschema.
"""

import json
import re
from urllib.parse import urldefrag, urljoin

# 'format' is an annotation too: the harness validates without a format checker, as jsonschema does by default.
_ANNOTATIONS = {"$schema", "$id", "$defs", "$comment", "title", "description", "default", "examples", "format"}
_KNOWN = _ANNOTATIONS | {"$ref", "oneOf", "allOf", "anyOf", "type", "properties", "required",
                         "additionalProperties", "const", "enum", "pattern", "items", "prefixItems", "minItems",
                         "maxItems", "minimum", "maximum", "minLength", "maxLength", "uniqueItems", "if", "then",
                         "else", "not", "propertyNames"}


class Unsupported(Exception):
    pass


# Hex strings (bytes on the wire) can be megabytes long, and Python's regex engine needs ~77 bytes of memory per
# character to match this pattern: it is checked without a regex (harness/schemas.py does the same for jsonschema).
HEX_PATTERN = "^([0-9a-f]{2})*$"


def is_hex(text):
    return len(text) % 2 == 0 and not text.strip("0123456789abcdef")


def pattern_search(pattern):
    """A search(text) callable for a schema pattern: truthy when the text matches."""
    if pattern == HEX_PATTERN:
        return lambda text: True if is_hex(text) else None
    return re.compile(pattern).search


def _is_type(value, name):
    if name == "object":
        return isinstance(value, dict)
    if name == "array":
        return isinstance(value, list)
    if name == "string":
        return isinstance(value, str)
    if name == "boolean":
        return isinstance(value, bool)
    if name == "null":
        return value is None
    if isinstance(value, bool):
        return False
    if name == "integer":
        return isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    if name == "number":
        return isinstance(value, (int, float))
    raise Unsupported(f"type {name!r}")


def _json_equal(a, b):
    # JSON equality: 1 == 1.0, but true is not 1 and key order does not matter.
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(map(_json_equal, a, b))
    return a == b


class Compiler:
    def __init__(self, documents):
        """documents: {$id: schema} for every schema a $ref may reach."""
        self.documents = documents
        self.cache = {}

    def compile(self, uri):
        """The predicate for the schema at uri ('<$id>#<json pointer>')."""
        if uri not in self.cache:
            cell = []
            self.cache[uri] = lambda x: cell[0](x)    # forward reference for recursive schemas
            base, fragment = urldefrag(uri)
            node = self.documents[base]
            for part in [p for p in fragment.split("/") if p]:
                node = node[part.replace("~1", "/").replace("~0", "~")]
            cell.append(self._node(node, base))
            self.cache[uri] = cell[0]
        return self.cache[uri]

    def _node(self, schema, base):
        if schema is True:
            return lambda x: True
        if schema is False:
            return lambda x: False
        unknown = set(schema) - _KNOWN
        if unknown:
            raise Unsupported(f"keywords {sorted(unknown)}")
        checks = []        # cheap checks first: a wrong branch of a oneOf fails before its deep parts run
        if "type" in schema:
            names = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
            checks.append(lambda x: any(_is_type(x, n) for n in names))
        if "const" in schema:
            const = schema["const"]
            checks.append(lambda x: _json_equal(x, const))
        if "enum" in schema:
            options = schema["enum"]
            checks.append(lambda x: any(_json_equal(x, o) for o in options))
        if "required" in schema:
            required = schema["required"]
            checks.append(lambda x: not isinstance(x, dict) or all(k in x for k in required))
        if "properties" in schema or "additionalProperties" in schema:
            checks.append(self._properties(schema, base))
        if "propertyNames" in schema:
            names = self._node(schema["propertyNames"], base)
            checks.append(lambda x: not isinstance(x, dict) or all(names(k) for k in x))
        if "pattern" in schema:
            search = pattern_search(schema["pattern"])
            checks.append(lambda x: not isinstance(x, str) or search(x) is not None)
        for key, test in (("minLength", lambda x, n: len(x) >= n), ("maxLength", lambda x, n: len(x) <= n)):
            if key in schema:
                checks.append(lambda x, n=schema[key], t=test: not isinstance(x, str) or t(x, n))
        for key, test in (("minimum", lambda x, n: x >= n), ("maximum", lambda x, n: x <= n)):
            if key in schema:
                checks.append(lambda x, n=schema[key], t=test:
                              isinstance(x, bool) or not isinstance(x, (int, float)) or t(x, n))
        for key, test in (("minItems", lambda x, n: len(x) >= n), ("maxItems", lambda x, n: len(x) <= n)):
            if key in schema:
                checks.append(lambda x, n=schema[key], t=test: not isinstance(x, list) or t(x, n))
        if schema.get("uniqueItems"):
            checks.append(lambda x: not isinstance(x, list) or
                          len({json.dumps(i, sort_keys=True) for i in x}) == len(x))
        if "prefixItems" in schema or "items" in schema:
            checks.append(self._items(schema, base))
        if "$ref" in schema:
            ref = urljoin(base, schema["$ref"])
            target, fragment = urldefrag(ref)
            checks.append(self.compile(f"{target}#{fragment}"))   # compiled now: Unsupported surfaces early
        if "allOf" in schema:
            dispatch = self._if_const_dispatch(schema["allOf"], base)
            parts = [] if dispatch else [self._node(s, base) for s in schema["allOf"]]
            checks.append(dispatch or (lambda x: all(p(x) for p in parts)))
        if "anyOf" in schema:
            parts = [self._node(s, base) for s in schema["anyOf"]]
            checks.append(lambda x: any(p(x) for p in parts))
        if "oneOf" in schema:
            checks.append(self._one_of(schema["oneOf"], base))
        if "not" in schema:
            negated = self._node(schema["not"], base)
            checks.append(lambda x: not negated(x))
        if "if" in schema:
            cond = self._node(schema["if"], base)
            then = self._node(schema.get("then", True), base)
            else_ = self._node(schema.get("else", True), base)
            checks.append(lambda x: then(x) if cond(x) else else_(x))
        if len(checks) == 1:
            return checks[0]

        def check_all(x):
            for c in checks:
                if not c(x):
                    return False
            return True
        return check_all

    def _properties(self, schema, base):
        props = {k: self._node(s, base) for k, s in schema.get("properties", {}).items()}
        extra = schema.get("additionalProperties", True)
        extra_check = None if extra is True else self._node(extra, base)
        # Properties whose schema is a const or enum first: they reject wrong oneOf branches cheaply.
        order = sorted(props, key=lambda k: 0 if isinstance(schema["properties"][k], dict) and
                       ({"const", "enum"} & set(schema["properties"][k])) else 1)

        def check(x):
            if not isinstance(x, dict):
                return True
            for k in order:
                if k in x and not props[k](x[k]):
                    return False
            if extra_check is not None:
                return all(extra_check(v) for k, v in x.items() if k not in props)
            return True
        return check

    def _items(self, schema, base):
        prefix = [self._node(s, base) for s in schema.get("prefixItems", [])]
        rest = self._node(schema["items"], base) if "items" in schema else None

        def check(x):
            if not isinstance(x, list):
                return True
            for p, item in zip(prefix, x):
                if not p(item):
                    return False
            return rest is None or all(rest(item) for item in x[len(prefix):])
        return check

    def _if_const_dispatch(self, parts, base):
        """allOf [{if: {properties: {P: {const: C}}}, then: S}, ...] (one P, distinct string C, no else) checks only
        the S whose C equals x[P]. When x is not an object or lacks P every 'if' holds, so every S is checked."""
        table, prop = {}, None
        for part in parts:
            cond = part.get("if") if isinstance(part, dict) else None
            if not (isinstance(cond, dict) and set(part) == {"if", "then"} and set(cond) == {"properties"}
                    and len(cond["properties"]) == 1):
                return None
            (p, sub), = cond["properties"].items()
            if prop not in (None, p) or not (isinstance(sub, dict) and set(sub) == {"const"}
                                             and isinstance(sub["const"], str)) or sub["const"] in table:
                return None
            prop = p
            table[sub["const"]] = part["then"]
        thens = {c: self._node(t, base) for c, t in table.items()}
        every = list(thens.values())

        def check(x):
            if not isinstance(x, dict) or prop not in x:
                return all(t(x) for t in every)
            t = thens.get(x[prop]) if isinstance(x[prop], str) else None
            return t is None or t(x)
        return check

    def _one_of(self, branches, base):
        parts = [self._node(s, base) for s in branches]
        table = self._discriminator(branches, base)
        if table is not None:
            # Every branch is an object requiring "type" with its own const: only the named branch can match.
            lookup = {name: parts[i] for name, i in table.items()}

            def dispatch(x):
                if not isinstance(x, dict) or not isinstance(x.get("type"), str):
                    return False
                p = lookup.get(x["type"])
                return p is not None and p(x)
            return dispatch
        return lambda x: sum(1 for p in parts if p(x)) == 1

    def _discriminator(self, branches, base):
        table = {}
        for i, branch in enumerate(branches):
            while isinstance(branch, dict) and set(branch) - _ANNOTATIONS == {"$ref"}:
                ref = urljoin(base, branch["$ref"])
                target, fragment = urldefrag(ref)
                node = self.documents[target]
                for part in [p for p in fragment.split("/") if p]:
                    node = node[part]
                branch, base = node, target
            if not (isinstance(branch, dict) and branch.get("type") == "object" and "type" in branch.get(
                    "required", []) and isinstance(branch.get("properties", {}).get("type"), dict)):
                return None
            const = branch["properties"]["type"].get("const")
            if not isinstance(const, str) or const in table:
                return None
            table[const] = i
        return table
