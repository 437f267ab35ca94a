"""docs/add-a-type.md is true: in a scratch copy of the repository, add a made-up Ignite ext type (DUMMY: one
payload byte, era 3.0) step by step as the guide says, and after every step run the guide's checks. Each step
must turn its own check green, and the checks of the steps not done yet must stay red, in the guide's order.

Only the relevant pytest node ids and the Python runner run here, to keep this quick.
"""

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from harness_fixtures.harness_helpers import REPO

PY = "/usr/bin/python3"
GUIDE = REPO / "docs" / "add-a-type.md"
T = "tests/test_corpus.py::"
# The guide's checks, in the guide's order; each is what fails until its step is done.
CHECKS = {
    "payload": [T + "test_registry_matches_its_schema"],   # red = the module does not import (no payload builder)
    "value-schema": [T + "test_registry_value_types_match_the_value_schema"],
    "spec": [T + "test_spec_states_every_registry_rule_once_with_its_level",
             T + "test_spec_names_every_ext_code_column_type_and_error_class"],
    "vectors": [T + "test_every_rule_has_a_vector_and_every_cited_rule_exists",
                T + "test_every_ext_code_appears_in_a_vector_of_each_era_that_assigns_it"],
    "drift": [T + "test_corpus_is_what_the_generator_makes"],
    "runner": ["harness verify --runners python -k 'ignite.*.dummy*'"],
}
# Copying these would only cost time: build output, installed packages, reports.
SKIP_PARTS = {"node_modules", "build", "build-sanitize", "out", "dist", "__pycache__", ".pytest_cache", ".git"}


def copy_repo(dest):
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=REPO, check=True,
                            capture_output=True).stdout.decode().split("\0")
    for rel in filter(None, listed):
        src = REPO / rel
        if SKIP_PARTS & set(Path(rel).parts) or not src.is_file():
            continue
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dest / rel)


def edit_json(path, change):
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def insert_before(path, anchor, text):
    source = path.read_text()
    assert source.count(anchor) == 1, f"{path.name}: anchor {anchor!r}"
    path.write_text(source.replace(anchor, text + anchor))


def bump_minor(version):
    major, minor, _patch = map(int, version.split("."))
    return f"{major}.{minor + 1}.0"


# --- the guide's steps, as a maintainer would do them -----------------------------------------
def step_registry(repo):
    def change(reg):
        reg["corpus_version"] = bump_minor(reg["corpus_version"])      # new vectors: minor (spec.md 8.2)
        reg["spec_version"] = bump_minor(reg["spec_version"])          # a new rule: minor
        reg["value_types"].append({"type": "dummy", "layer": "ignite-ext"})
        reg["layouts"].append({"id": "dummy", "value_type": "dummy", "payload": "fixed", "length": 1,
                               "description": "One unsigned byte, 0-255."})
        code = max(e["code"] for e in reg["ext_types"]) + 1
        reg["ext_types"].append({"code": code, "name": "DUMMY", "added": "0000000", "layouts": {"3.0": "dummy"}})
        reg["rules"].append({"id": "EXT-DUMMY", "level": "must",
                             "title": "DUMMY is one payload byte, read as an unsigned value 0-255."})
    edit_json(repo / "schema" / "registry.json", change)


def step_payload(repo):
    insert_before(repo / "generator" / "ignite.py", '    "no-value": lambda v: b"\\x00",\n',
                  '    "dummy": lambda v: bytes([v["value"]]),\n')


def step_value_schema(repo):
    def change(schema):
        defs = schema["$defs"]
        defs["value"]["properties"]["type"]["enum"].append("dummy")
        defs["value"]["allOf"].append({"if": {"properties": {"type": {"const": "dummy"}}},
                                       "then": {"$ref": "#/$defs/dummy"}})
        defs["dummy"] = {"description": "DUMMY (a made-up ext type, era 3.0): one unsigned byte.", "type": "object",
                         "properties": {"type": {"const": "dummy"}, "era": {"$ref": "#/$defs/ignite_era"},
                                        "value": {"type": "integer", "minimum": 0, "maximum": 255}},
                         "required": ["type", "era", "value"], "additionalProperties": False}
    edit_json(repo / "schema" / "value.schema.json", change)


def step_spec(repo):
    code = max(e["code"] for e in json.loads((repo / "schema" / "registry.json").read_text())["ext_types"])
    spec = repo / "spec.md"
    anchor = re.search(r"^## 6\. .*\n", spec.read_text(), re.M).group(0)
    insert_before(spec, anchor, f"### 5.99 DUMMY ({code}): 3.0\n\n| code | name | payload |\n|---|---|---|\n"
                                f"| {code} | `DUMMY` | one unsigned byte |\n\n"
                                "- **EXT-DUMMY** (MUST) The payload is one byte, read as an unsigned value 0-255.\n\n")


def step_generator_source(repo):
    insert_before(repo / "generator" / "sources.py", '    elif kind != "no_value":\n',
                  '    elif kind == "dummy":\n        ig["value"] = as_int(subst(arg, names), names)\n')
    insert_before(repo / "generator" / "sources" / "hostile-ext-length.yaml", "      no_value: {no_value: null}\n",
                  "      dummy: {dummy: 7}\n")
    version = json.loads((repo / "schema" / "registry.json").read_text())["corpus_version"]
    (repo / "generator" / "sources" / "ignite-dummy.yaml").write_text(f"""\
family: ignite-dummy
description: DUMMY (a made-up ext type) - one unsigned payload byte, era 3.0.
era: "3.0"
since: {version}
cases:
  - foreach: {{v: [0, 1, 255]}}
    id: ignite.3.0.dummy.$v
    description: DUMMY $v
    rules: [EXT-DUMMY, EXT-ERA]
    value: {{dummy: $v}}
""")


def step_make_vectors(repo):
    p = subprocess.run([PY, "-m", "generator"], cwd=repo, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr


def step_python_codec(repo):
    ext = repo / "runners" / "python" / "ignite_ext.py"
    insert_before(ext, '    "no-value": lambda p: {},\n', '    "dummy": lambda p: {"value": p[0]},\n')
    insert_before(ext, '    "no-value": lambda v: b"\\x00",\n', '    "dummy": lambda v: bytes([v["value"]]),\n')


# (guide step, edit, the checks red after it). A step's own check turns green; the later ones stay red.
STEPS = [
    ("1. registry", step_registry, ["payload", "value-schema", "spec", "vectors", "drift", "runner"]),
    ("2. generator payload builder", step_payload, ["value-schema", "spec", "vectors", "drift", "runner"]),
    ("3. value schema", step_value_schema, ["spec", "vectors", "drift", "runner"]),
    ("4. spec.md", step_spec, ["vectors", "drift", "runner"]),
    ("5. generator source", step_generator_source, ["vectors", "drift", "runner"]),
    ("6. make vectors", step_make_vectors, ["runner"]),
    ("7. runner codecs (python here)", step_python_codec, []),
]


def red_checks(repo, tmp_path):
    nodes = [n for name in CHECKS if name != "runner" for n in CHECKS[name]]
    p = subprocess.run([PY, "-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider", *nodes], cwd=repo,
                       capture_output=True, text=True, timeout=300)
    passed = set(re.findall(r"^PASSED (\S+)", p.stdout, re.M))
    red = [name for name in CHECKS if name != "runner" and not set(CHECKS[name]) <= passed]
    h = subprocess.run([PY, "-m", "harness", "verify", "--runners", "python", "-k", "ignite.*.dummy*",
                        "--out", str(tmp_path / "out")], cwd=repo, capture_output=True, text=True, timeout=300)
    if h.returncode != 0:
        red.append("runner")
    return red, p.stdout[-3000:] + h.stdout[-2000:] + h.stderr[-2000:]


def test_the_guide_names_these_steps_and_checks():
    text = GUIDE.read_text()
    for check in [n.split("::")[1] for name in CHECKS if name != "runner" for n in CHECKS[name]]:
        assert check in text, f"docs/add-a-type.md does not name the check {check}"
    assert "-k 'ignite.*.<type>*'" in text
    # What the guide says about the red checks is what STEPS asserts: several stay red after a step, and the
    # generator's drift check lists every file a version bump rewrites, not only the new one.
    assert "exactly one named check" not in text
    assert len(STEPS[1][2]) == 5 and "after step 2, for instance,\nfive do" in text
    assert "every other corpus file too" in text
    positions = [text.find(f"## {title[0]}. ") for title, _, _ in STEPS]
    assert -1 not in positions and positions == sorted(positions), "the guide's steps are not numbered 1..7 in order"


def test_adding_a_type_fails_each_check_until_its_step_is_done(tmp_path):
    repo = tmp_path / "repo"
    copy_repo(repo)
    red, log = red_checks(repo, tmp_path)
    assert red == ["runner"], f"before any step only the runner check (no dummy vectors yet) is red: {red}\n{log}"
    for title, edit, expected in STEPS:
        edit(repo)
        red, log = red_checks(repo, tmp_path)
        assert red == expected, f"after step {title}: red {red}, the guide says {expected}\n{log}"
