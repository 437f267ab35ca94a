"""runners/PROTOCOL.md cannot drift: its JSON fragments must be in the protocol schema, and the tutorial's
outputs must be what the harness prints today for the tutorial runners.

To refresh the outputs after a deliberate change: TUTORIAL_UPDATE=1 /usr/bin/python3 -m pytest tests/test_harness_protocol_doc.py
"""

import json
import os
import re
import subprocess

import pytest

from harness_fixtures.harness_helpers import REPO

DOC = REPO / "runners" / "PROTOCOL.md"
TUTORIAL = "tests/harness_fixtures/tutorial"
VERIFY = f"/usr/bin/python3 -m harness verify --runners tutorial --corpus {TUTORIAL}/corpus.json"
COMMANDS = {
    "step0": f"{VERIFY} --command tutorial='/usr/bin/python3 {TUTORIAL}/step0_start.py'",
    "step1": f"{VERIFY} --command tutorial='/usr/bin/python3 {TUTORIAL}/step1_decode.py'",
    "step2": f"{VERIFY} --command tutorial='/usr/bin/python3 {TUTORIAL}/step2_errors.py'",
    "step3": f"{VERIFY} --command tutorial='/usr/bin/python3 {TUTORIAL}/step3_encode.py'",
    "step4": f"{VERIFY} --runners-dir {TUTORIAL}/runners",
    "dump": f"{VERIFY} --dump tut.int.small",
    "dumppipe": f"{VERIFY} --dump tut.int.small 2>/dev/null | /usr/bin/python3 {TUTORIAL}/step3_encode.py",
}
# <!-- output: NAME --> then a ```text block holding that command's stdout.
OUTPUT_BLOCK = re.compile(r"(<!-- output: (\w+) -->\n```text\n)(.*?)(```)", re.S)


def subschemas(node):
    yield node
    if isinstance(node, dict):
        for value in node.values():
            yield from subschemas(value)
    elif isinstance(node, list):
        for value in node:
            yield from subschemas(value)


def test_every_json_fragment_is_in_the_protocol_schema():
    schema = json.loads((REPO / "schema" / "protocol.schema.json").read_text())
    known = [json.dumps(n, sort_keys=True) for n in subschemas(schema) if isinstance(n, dict)]
    blocks = re.findall(r"```json\n(.*?)```", DOC.read_text(), re.S)
    assert len(blocks) >= 8
    for block in blocks:
        fragment = json.loads(block)
        # A fragment is either one sub-schema, or {"<$defs name>": sub-schema} naming where it comes from.
        if len(fragment) == 1 and next(iter(fragment)) in schema["$defs"]:
            name, fragment = next(iter(fragment.items()))
            assert fragment == schema["$defs"][name], name
        assert json.dumps(fragment, sort_keys=True) in known, block[:200]


def test_every_defs_entry_is_documented():
    schema = json.loads((REPO / "schema" / "protocol.schema.json").read_text())
    text = DOC.read_text()
    for name in schema["$defs"]:
        assert f'"{name}"' in text, name


def run_command(command, tmp_path):
    env = dict(os.environ)
    out = subprocess.run(f"{command} --out {tmp_path}/out" if "--dump" not in command else command, shell=True,
                         cwd=REPO, capture_output=True, text=True, timeout=60, env=env)
    return out.stdout


def test_tutorial_outputs_are_current(tmp_path):
    text = DOC.read_text()
    names = [m.group(2) for m in OUTPUT_BLOCK.finditer(text)]
    assert sorted(names) == sorted(COMMANDS)
    for name in names:
        assert COMMANDS[name] in text, f"the doc must show the command of {name} as the test runs it"
    if os.environ.get("TUTORIAL_UPDATE"):
        text = OUTPUT_BLOCK.sub(lambda m: m.group(1) + run_command(COMMANDS[m.group(2)], tmp_path) + m.group(4), text)
        DOC.write_text(text)
        pytest.skip("outputs rewritten")
    for m in OUTPUT_BLOCK.finditer(text):
        assert run_command(COMMANDS[m.group(2)], tmp_path) == m.group(3), f"output of {m.group(2)} changed"
