"""The counts and names README.md and the docs quote are the corpus's and the code's: vector counts, the corpus
version (and the one place the CI templates take it from), runners and their libraries, formats, Makefile targets,
harness options, and the README's example outputs.

A quoted count or version is read back from the page and compared with what the corpus, the registry, the
schemas, runners/*/ and the Makefile say today, so a corpus change that moves a number fails here, naming the page
and the number. The README's failure example is the real output of its command; after a deliberate change,
refresh it with `README_UPDATE=1 /usr/bin/python3 -m pytest tests/test_docs_sync.py` and read the diff.
"""

import functools
import json
import os
import re
import subprocess

import pytest
import yaml

from harness import expectations, ops
from harness_fixtures.harness_helpers import PY, REPO

README = REPO / "README.md"
DOCS = [README, REPO / "runners" / "PROTOCOL.md", REPO / "ci" / "README.md", *sorted((REPO / "docs").glob("*.md"))]
REGISTRY = json.loads((REPO / "schema" / "registry.json").read_text())
VERSION = REGISTRY["corpus_version"]
FORMATS = json.loads((REPO / "schema" / "protocol.schema.json").read_text())["$defs"]["format"]["enum"]
# The reference runners: runners/ignite-* wrap the official clients and have their own section (make verify-official).
RUNNERS = sorted(p.parent.name for p in (REPO / "runners").glob("*/runner.json") if not p.parent.name.startswith("ignite-"))


def text(path):
    return path.read_text()


def flat(s):
    """Prose with its line breaks as spaces: a quoted phrase may wrap anywhere."""
    return re.sub(r"\s+", " ", s)


def number(s):
    return int(s.replace(",", ""))


def section(page, title):
    """The text of '## title' up to the next '## ' heading."""
    return page.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


@functools.lru_cache(maxsize=None)
def corpus():
    """Every vector of vectors/ with its file's family, as the manifest lists the files."""
    manifest = json.loads((REPO / "vectors" / "manifest.json").read_text())
    vectors = []
    for entry in manifest["files"]:
        data = json.loads((REPO / "vectors" / entry["path"]).read_text())
        vectors += [dict(v, family=data["family"]) for v in data["vectors"]]
    return vectors


@functools.lru_cache(maxsize=None)
def counts():
    vectors = corpus()
    kinds = {kind: sum(v["kind"] == kind for v in vectors) for kind in ("value", "decode-reject", "encode-reject")}
    return {"total": len(vectors), **kinds,
            "binary-tuple layer": sum(v.get("format", "msgpack") not in ("msgpack", "frame") for v in vectors),
            "frame layer": sum(v.get("format") == "frame" for v in vectors)}


def test_the_readme_vector_counts_are_the_corpus():
    intro = flat(text(README).split("\n## ", 1)[0])
    m = re.search(r"corpus version (\d+\.\d+\.\d+): ([\d,]+) vectors \(([\d,]+) values .*?, ([\d,]+) must-reject "
                  r"inputs .*?, ([\d,]+) values no encoder may write; ([\d,]+) of them Binary Tuple.*?"
                  r"and ([\d,]+) frame vectors", intro)
    assert m, "README's first section must say 'corpus version V: N vectors (V values ..., R must-reject inputs ..., " \
              "E values no encoder may write; B of them Binary Tuple ... and F frame vectors'"
    quoted = dict(zip(("total", "value", "decode-reject", "encode-reject", "binary-tuple layer", "frame layer"),
                      map(number, m.groups()[1:])))
    assert m.group(1) == VERSION, f"README says corpus version {m.group(1)}, schema/registry.json {VERSION}"
    assert quoted == counts(), f"README quotes {quoted}, the corpus has {counts()}"


def test_every_vector_count_the_docs_quote_is_a_count_of_the_corpus():
    """A number of 100 or more right before 'vectors', 'must-reject' or 'values' (a count of the corpus) is one
    of the counts above: a stale number elsewhere (README once said 11,662 must-reject vectors) fails here."""
    known = set(counts().values())
    for path in DOCS:
        for m in re.finditer(r"(?<![\w.,-])(\d[\d,]*) (?:[a-z-]+ )?(vectors|must-reject|values)\b", flat(text(path))):
            if number(m.group(1)) >= 100:
                assert number(m.group(1)) in known, f"{path.name}: '{m.group(0)}' is none of the corpus's counts " \
                                                    f"{counts()}"


def test_every_corpus_version_the_docs_quote_is_the_registry_s():
    quoted = {"spec.md": re.search(r"corpus version (\d+\.\d+\.\d+)", text(REPO / "spec.md")).group(1)}
    for path in DOCS:
        for m in re.finditer(r"(?:corpus(?: version)?|CORPUS_VERSION=)\s*(\d+\.\d+\.\d+)", text(path)):
            quoted[f"{path.name}: {m.group(0)}"] = m.group(1)
    assert len(quoted) >= 4
    for where, version in quoted.items():
        assert version == VERSION, f"{where}: corpus {version}, but schema/registry.json says {VERSION}"
    manifest = json.loads((REPO / "vectors" / "manifest.json").read_text())
    assert manifest["corpus_version"] == VERSION


def test_the_ci_templates_take_the_corpus_version_from_one_place():
    """The workflow names the version once (env CORPUS_VERSION, which the gate also checks against the release's
    manifest) and builds the release URL from it; the shell examples set CORPUS_VERSION once and use
    $CORPUS_VERSION. No page spells out an archive name with a version in it."""
    workflow_text = text(REPO / "ci" / "github-actions.yml")
    workflow = yaml.safe_load(workflow_text)
    assert workflow["env"]["CORPUS_VERSION"] == VERSION, "ci/github-actions.yml: env CORPUS_VERSION"
    assert workflow_text.count(VERSION) == 1, "ci/github-actions.yml must name the corpus version in one place"
    gate_step = next(s for s in workflow["jobs"]["conformance"]["steps"] if "gate.sh" in s.get("run", ""))
    release = gate_step["env"]["CORPUS_RELEASE"]
    assert release.count("${{ env.CORPUS_VERSION }}") == 2 and release.endswith(".tar.gz"), release
    for path in (REPO / "ci" / "README.md", REPO / "docs" / "add-your-client.md"):
        page = text(path)
        assert page.count(f"CORPUS_VERSION={VERSION}") == 1, f"{path.name}: export CORPUS_VERSION={VERSION} once"
        assert "ignite-wire-corpus-$CORPUS_VERSION.tar.gz" in page, path.name
    for path in [*DOCS, REPO / "ci" / "github-actions.yml"]:
        assert not re.search(r"ignite-wire-corpus-\d", text(path)), f"{path.name} spells out a release's version"


def test_the_runner_table_lists_every_runner_with_its_library():
    """One row per runners/<name>/runner.json; the library's name is the one the runner's start answer gives,
    its version the one the runner's README states."""
    rows = re.findall(r"^\| `([a-z0-9_-]+)` \| ([^|]+) \| \[runners/\1\]\(runners/\1/README\.md\) \|$",
                      text(README), re.M)
    assert sorted(name for name, _ in rows) == RUNNERS
    for name, library in rows:
        m = re.match(r"(\S+) (\d+(?:\.\d+)+)", library)
        assert m, f"README's {name} row: expected 'LIBRARY VERSION ...', got {library!r}"
        assert any(start.startswith(m.group(1)) for start in start_libraries(name)), \
            f"README's {name} row names {m.group(1)}; the runner's start answer says {start_libraries(name)}"
        assert m.group(2) in text(REPO / "runners" / name / "README.md"), \
            f"README's {name} row says {m.group(1)} {m.group(2)}; runners/{name}/README.md does not"


@functools.lru_cache(maxsize=None)
def start_libraries(name):
    """The "library" strings in the runner's sources (what its start answer names)."""
    found = set()
    for path in (REPO / "runners" / name).rglob("*"):
        if path.suffix in (".py", ".java", ".cpp", ".mjs", ".go", ".rs", ".cs") and not (
                {"node_modules", "target", "build", "bin", "obj"} & set(path.relative_to(REPO).parts)):
            source = path.read_text(errors="replace")
            found |= set(re.findall(r'"library"\W{1,12}"([^"]+)"', source))
            found |= set(re.findall(r'\bLIBRARY\s*=\s*"([^"]+)"', source))
    assert found, f"no library name in runners/{name}/'s sources"
    return found


def test_the_binary_tuple_codec_files_the_readme_names_exist():
    runners = section(text(README), "Plug in your own client")
    files = re.search(r"carries that one codec itself \(([^)]*)\)", flat(runners)).group(1)
    names = re.findall(r"`([^`]+)`", files)
    assert len(names) == len(RUNNERS)
    for name in names:
        assert any((REPO / "runners").glob(f"*/**/{name}")), f"README names {name}: no such file in runners/"


def test_add_a_type_names_every_runner_s_codec():
    rows = re.findall(r"^\| `([a-z0-9_-]+)` \| `(runners/[^`]+)` \|", text(REPO / "docs" / "add-a-type.md"), re.M)
    assert sorted(name for name, _ in rows) == RUNNERS, "docs/add-a-type.md step 7: one row per runner"
    for name, path in rows:
        assert path.startswith(f"runners/{name}/") and (REPO / path).is_file(), path


def test_every_format_list_is_the_protocol_schema_s():
    # Format frame is the frame layer's (spec.md 11), with rows of its own; the lists below are the value formats.
    assert FORMATS[-1] == "frame"
    value_formats = FORMATS[:-1]
    spec = text(REPO / "spec.md")
    table = spec.split("#### 6.2.1 Formats and notation", 1)[1].split("\n\n|", 1)[1].split("\n\n", 1)[0]
    assert ["msgpack", *re.findall(r"^\| `([a-z-]+)` \|", table, re.M)] == value_formats, "spec.md 6.2.1's table"
    row = re.search(r"^\| `format`, `columns` \| Optional: what the bytes are \(([^)]*)\)", spec, re.M).group(1)
    assert re.findall(r"`([a-z-]+)`", row) == value_formats, "spec.md 8.1, the format field"
    assert re.search(r"^\| `frame`, `features`, `fields` \| Frame vectors \(`format: frame`", spec, re.M), "spec 8.1"
    annotate = flat(text(REPO / "docs" / "add-your-client.md").split("-m harness annotate HEX", 1)[1])
    listed = re.search(r"with `--format binary-tuple .*? and with `--format (.*?) the MessagePack", annotate).group(1)
    assert ["msgpack", "binary-tuple", *re.findall(r"([a-z-]+)`", listed)] == value_formats, "add-your-client.md"
    choices = subprocess.run([PY, "-m", "harness", "annotate", "--help"], cwd=REPO, capture_output=True, text=True)
    assert "{" + ",".join(FORMATS) + "}" in choices.stdout


def test_the_make_targets_the_readme_names_exist():
    makefile = text(REPO / "Makefile")
    targets = set(re.findall(r"^([a-z][a-z0-9-]*)\s*:(?!=)", makefile, re.M))
    named = set(re.findall(r"`make ([a-z][a-z0-9-]*)", text(README)))
    assert {"verify", "test", "release"} <= named
    assert named <= targets, f"README names make targets the Makefile lacks: {sorted(named - targets)}"


@functools.lru_cache(maxsize=None)
def help_options(*command):
    out = subprocess.run([PY, *command, "--help"], cwd=REPO, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", out.stdout))


def test_the_options_the_docs_quote_exist():
    """An option on a line or in a code span that runs `harness verify` is one of `harness verify --help`'s;
    every other option the docs quote is one of the project's tools'."""
    verify = help_options("-m", "harness", "verify")
    tools = verify | help_options("-m", "harness", "annotate") | help_options("-m", "harness", "report-journal") \
        | help_options("-m", "generator") | help_options("-m", "fuzz") | help_options("tools/bench_hostile.py") \
        | help_options("-m", "dashboard") | help_options("tools/official_table.py")
    assert {"--expected-failures", "--command", "--corpus", "--require"} <= verify
    quoted_in_verify = 0
    for path in DOCS:
        page = text(path)
        for m in re.finditer(r"(?<![\w-])--[a-z][a-z0-9-]*", page):
            assert m.group(0) in tools, f"{path.name} quotes {m.group(0)}, which no tool of the project has"
        for piece in re.findall(r"`[^`\n]*`|^.*$", page, re.M):
            if "harness verify" in piece:
                for option in re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", piece):
                    quoted_in_verify += 1
                    assert option in verify, f"{path.name}: {option} is not an option of harness verify: {piece}"
    assert quoted_in_verify >= 20


# --- the README's example outputs -------------------------------------------------------------------------------

def test_the_verify_example_counts_are_the_corpus_s():
    """The abridged `make verify` output: one line per runner, each adding up to the ops the corpus gives a runner,
    'info' its implementation-defined ops, 'xfail' what the runner's expected-failures.txt lists (and nothing
    failing); the closing line counts every runner's pass, xfail and info (the matrix added no fresh passes: every
    runner wrote the corpus's bytes)."""
    block = re.search(r"\(`make verify` with all runners, abridged\):\n\n```\n(.*?)```", text(README), re.S).group(1)
    lines = re.findall(r"^([a-z0-9_-]+) \((.+?), (.+)\): (\d+) pass, (\d+) fail(?:, (\d+) xfail)?, (\d+) info$",
                       block, re.M)
    assert sorted(line[0] for line in lines) == RUNNERS
    vector_ops = [(v, op.name) for v in corpus() for op in ops.ops_for(v)]
    impl = sum(v["level"] == "impl" for v, _ in vector_ops)
    total = 0
    for name, _language, library, passed, failed, xfailed, info in lines:
        assert any(library.startswith(start) for start in start_libraries(name)), f"{name}: library {library}"
        listed = listed_ops(name, vector_ops)
        expected = (len(vector_ops) - impl - listed, 0, listed, impl)
        assert (int(passed), int(failed), int(xfailed or 0), int(info)) == expected, \
            f"README's {name} line: the corpus gives {name} %d pass, %d fail, %d xfail, %d info" % expected
        total += int(passed) + int(xfailed or 0) + int(info)
    closing = re.search(r"^(\d+) passed, 0 failed$", block, re.M)
    assert closing and int(closing.group(1)) == total
    harness = "".join(p.read_text() for p in (REPO / "harness").glob("*.py"))
    for line in block.splitlines():
        if line.endswith(" ...") and line != "...":
            assert line[:-4] in harness, f"README's example line is not the harness's: {line}"


def listed_ops(name, vector_ops):
    entries = expectations.parse(REPO / "runners" / name / "expected-failures.txt")
    return sum(any(e.matches(v["id"], op, {"family": v["family"], "era": v["era"],
                                            "format": v.get("format", "msgpack")}) for e in entries)
               for v, op in vector_ops if v["level"] != "impl")


def test_the_only_listed_failures_are_the_ones_the_readme_names():
    m = re.search(r"Today the only listed failures are the C\+\+ runner's (\d+)", flat(text(README)))
    assert m
    vector_ops = [(v, op.name) for v in corpus() for op in ops.ops_for(v)]
    listed = {name: listed_ops(name, vector_ops) for name in RUNNERS}
    assert listed == {name: int(m.group(1)) if name == "cpp" else 0 for name in RUNNERS}


FAILURE_EXAMPLE = re.compile(r"(run with\n`([^`]*)`\)\ngets:\n\n<!-- output: wide-int -->\n```\n)(.*?)(```)", re.S)


def test_the_failure_example_is_real_output(tmp_path):
    page = text(README)
    m = FAILURE_EXAMPLE.search(page)
    assert m, "README's failure example: 'run with `COMMAND`)' then '<!-- output: wide-int -->' and its block"
    run = subprocess.run(f"{m.group(2)} --out {tmp_path}/out", shell=True, cwd=REPO, capture_output=True, text=True, timeout=120,
                         env=dict(os.environ, PWD=str(REPO)))
    assert run.returncode == 1 and "FAIL python seed.iep75.sql-request encode" in run.stdout, run.stderr
    if os.environ.get("README_UPDATE"):
        README.write_text(page[:m.start(3)] + run.stdout + page[m.end(3):])
        pytest.skip("README's failure example rewritten")
    assert run.stdout == m.group(3), "README's failure example is not what the command prints today"


def test_the_readme_names_every_verdict_and_op():
    from harness import results
    verdicts = flat(text(README).split("\nVerdicts: ", 1)[1].split("\n\n", 1)[0])
    for verdict in results.ORDER:
        assert f"`{verdict}`" in verdicts, f"README's Verdicts paragraph does not name `{verdict}`"
    operations = flat(text(README).split("\nThe operations are ", 1)[1].split("\n\n", 1)[0])
    named = set(re.findall(r"`([a-z-]+(?:\[<label>\])?)` \(", operations))
    made = {re.sub(r"\[.*\]", "[<label>]", op.name) for v in corpus() for op in ops.ops_for(v)}
    assert named == made, f"README's operations {sorted(named)}, the harness's {sorted(made)}"


def test_every_path_of_the_readme_layout_exists():
    rows = re.findall(r"^\| `([^`]+)` \|", section(text(README), "Layout"), re.M)
    assert len(rows) >= 15
    for path in rows:
        assert list(REPO.glob(path.replace("<name>", "*").rstrip("/"))), f"README's Layout names {path}"


def slug(heading):
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as '-'."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_every_relative_link_of_the_docs_resolves():
    for path in DOCS:
        for target in re.findall(r"\]\(([^)\s]+)\)", text(path)):
            if re.match(r"[a-z]+:", target):
                continue
            file, _, anchor = target.partition("#")
            linked = (path.parent / file).resolve() if file else path
            assert linked.exists(), f"{path.name} links to {target}: no such file"
            if anchor:
                headings = re.findall(r"^#+ (.+)$", linked.read_text(), re.M)
                assert anchor in {slug(h) for h in headings}, f"{path.name} links to {target}: no such heading"
