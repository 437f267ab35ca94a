"""The repository's Python reads one way: no import circle among harness/, generator/, fuzz/, tools/, bench/ and
dashboard/ (imports inside functions count too: a circle hidden in a function is still a circle), and harness/cli.py
only parses arguments (the verify pipeline lives in harness/verify*.py)."""

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ROOTS = ("harness", "generator", "fuzz", "tools", "bench", "dashboard")
CLI_MAX_LINES = 250


def _modules():
    """{module name: file}: packages by their dotted names; a script directory's files (no __init__.py) by path."""
    found = {}
    for root in ROOTS:
        for path in sorted((REPO / root).rglob("*.py")):
            rel = path.relative_to(REPO)
            if (path.parent / "__init__.py").exists():
                parts = list(rel.with_suffix("").parts)
                if parts[-1] == "__init__":
                    parts.pop()
                found[".".join(parts)] = path
            else:
                found[str(rel.with_suffix(""))] = path
    return found


def _package(name, path):
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


def _imports(name, path, modules):
    """The modules of this repository that name's file imports, anywhere in it."""
    here = _package(name, path)
    script_dir = str(path.parent.relative_to(REPO)) if "/" in name else None
    found = set()

    def add(target):
        if target in modules and target != name:
            found.add(target)
            return True
        return False

    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if not add(alias.name) and script_dir:
                    add(f"{script_dir}/{alias.name}")       # a script's sibling, found through sys.path[0]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here.split(".")[:len(here.split(".")) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module
                if script_dir and f"{script_dir}/{source}" in modules:
                    source = f"{script_dir}/{source}"
            for alias in node.names:
                if not add(f"{source}.{alias.name}"):     # `from package import module`
                    add(source)
    return found


def _cycles(graph):
    """Every strongly connected group of more than one module (Tarjan), each sorted."""
    index, low, stack, on_stack, groups = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return groups


def test_the_graph_sees_imports_of_every_kind():
    modules = _modules()
    assert "harness.cli" in modules and "tools/bench_hostile" in modules
    assert {"harness.runner_config", "harness.threads"} <= _imports("harness.api", modules["harness.api"], modules)
    assert {"fuzz.check", "harness.api"} <= _imports("fuzz.__main__", modules["fuzz.__main__"], modules)
    assert "bench/stats" in _imports("bench/verify_speed", modules["bench/verify_speed"], modules)   # a sibling
    assert "generator.bt_sources" in _imports("generator.expand", modules["generator.expand"], modules)   # relative
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_import_circle():
    modules = _modules()
    graph = {name: _imports(name, path, modules) for name, path in modules.items()}
    assert _cycles(graph) == [], "modules that import each other, directly or around a circle"


# bench/verify_speed.py profiles the pipeline's own functions (it wraps them): it alone reaches inside.
INSIDE_ON_PURPOSE = {"bench/verify_speed"}


def test_fuzz_tools_and_bench_use_the_public_api():
    modules = _modules()
    outside = [name for name in modules if name.split(".")[0].split("/")[0] in ("fuzz", "tools", "bench")]
    internals = {name: sorted(m for m in _imports(name, modules[name], modules)
                              if m.startswith("harness") and m not in ("harness", "harness.api"))
                 for name in outside if name not in INSIDE_ON_PURPOSE}
    assert {name: found for name, found in internals.items() if found} == {}, "import these through harness/api.py"


def test_cli_only_parses_arguments():
    lines = len((REPO / "harness" / "cli.py").read_text().splitlines())
    assert lines < CLI_MAX_LINES, f"harness/cli.py has {lines} lines: the verify pipeline belongs in harness/verify*.py"
