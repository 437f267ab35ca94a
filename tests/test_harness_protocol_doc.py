"""runners/PROTOCOL.md and docs/add-your-client.md cannot drift: PROTOCOL.md's JSON fragments must be in the
protocol schema; the tutorial's outputs must be what the harness prints today for the tutorial runners, its
Python lines must be in the tutorial runners, and its JSON and protocol lines must be valid protocol messages.

To refresh the outputs after a deliberate change: TUTORIAL_UPDATE=1 /usr/bin/python3 -m pytest tests/test_harness_protocol_doc.py
"""

import json
import os
import re
import subprocess

import pytest

from harness_fixtures.harness_helpers import REPO

DOC = REPO / "runners" / "PROTOCOL.md"
TUTORIAL_DOC = REPO / "docs" / "add-your-client.md"
TUTORIAL = "tests/harness_fixtures/tutorial"
VERIFY = f"/usr/bin/python3 -m harness verify --runners tutorial --corpus {TUTORIAL}/corpus.json"
COMMANDS = {
    "step0": f"{VERIFY} --command tutorial='/usr/bin/python3 {TUTORIAL}/step0_start.py'",
    "step1": f"{VERIFY} --command tutorial='/usr/bin/python3 {TUTORIAL}/step1_decode.py'",
    "step2": f"{VERIFY} --command tutorial='/usr/bin/python3 {TUTORIAL}/step2_errors.py'",
    "step3": f"{VERIFY} --command tutorial='/usr/bin/python3 {TUTORIAL}/step3_encode.py'",
    "step4": f"{VERIFY} --runners-dir {TUTORIAL}/runners",
    # The same list given to a --command runner, as an out-of-tree runner gives it.
    "step4file": f"{VERIFY} --command tutorial='/usr/bin/python3 {TUTORIAL}/step1_decode.py' "
                 f"--expected-failures tutorial={TUTORIAL}/runners/tutorial/expected-failures.txt",
    # The real corpus (vectors/, the default), the families the step-3 runner implements.
    "step5": "/usr/bin/python3 -m harness verify --runners tutorial --family int --family nil-bool "
             f"--command tutorial='/usr/bin/python3 {TUTORIAL}/step3_encode.py'",
    # Frames (spec.md 11): the kinds the step-7 runner implements, over the real corpus.
    "step7": "/usr/bin/python3 -m harness verify --runners tutorial -k 'frame.request.*' "
             "-k 'frame.handshake-request.minimal' -k 'frame.handshake-request.client-*' "
             f"--command tutorial='/usr/bin/python3 {TUTORIAL}/step7_frames.py'",
    "dump": f"{VERIFY} --dump tut.int.small",
    "dumppipe": f"{VERIFY} --dump tut.int.small 2>/dev/null | /usr/bin/python3 {TUTORIAL}/step3_encode.py",
}
# <!-- output: NAME --> then a ```text block holding that command's stdout.
OUTPUT_BLOCK = re.compile(r"(<!-- output: (\w+) -->\n```text\n)(.*?)(```)", re.S)
# What the page says the commands print on stderr, left out of its blocks: anything else (a warning, a note about
# the selection) would be output the reader gets and the page does not show.
STDERR_SHOWN_NOWHERE = ("harness: corpus: ", "reports: ", "# request ",
                        "harness: note: corpus files are version 1.0.0, schema/registry.json says ")


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
    unshown = [line for line in out.stderr.splitlines() if not line.startswith(STDERR_SHOWN_NOWHERE)]
    assert not unshown, f"{command}\nprints on stderr what the page does not show: {unshown}"
    return out.stdout


def test_tutorial_outputs_are_current(tmp_path):
    text = TUTORIAL_DOC.read_text()
    names = [m.group(2) for m in OUTPUT_BLOCK.finditer(text)]
    assert sorted(names) == sorted(COMMANDS)
    for name in names:
        assert COMMANDS[name] in text, f"the doc must show the command of {name} as the test runs it"
    for prefix in STDERR_SHOWN_NOWHERE:
        assert prefix.strip() in text.replace("\n", " "), f"the doc must say that stderr has {prefix!r} lines"
    if os.environ.get("TUTORIAL_UPDATE"):
        text = OUTPUT_BLOCK.sub(lambda m: m.group(1) + run_command(COMMANDS[m.group(2)], tmp_path) + m.group(4), text)
        TUTORIAL_DOC.write_text(text)
        pytest.skip("outputs rewritten")
    for m in OUTPUT_BLOCK.finditer(text):
        assert run_command(COMMANDS[m.group(2)], tmp_path) == m.group(3), f"output of {m.group(2)} changed"


def test_tutorial_python_is_the_tutorial_runners_code():
    """Every line of a ```python block (but '...') is a line of one of the step files, so the page shows the
    code that produced its outputs."""
    code = {line.strip() for p in (REPO / TUTORIAL).glob("step*.py") for line in p.read_text().splitlines()}
    # The unit-test route's example (tests/test_packages_build.py checks that block against it).
    code |= {line.strip() for line in (REPO / "packages/python/consumer/test_unit_route.py").read_text().splitlines()}
    blocks = re.findall(r"```python\n(.*?)```", TUTORIAL_DOC.read_text(), re.S)
    assert len(blocks) >= 4
    for block in blocks:
        for line in block.splitlines():
            assert line.strip() in code | {"", "..."}, f"not in {TUTORIAL}/step*.py: {line.strip()}"


def test_tutorial_messages_are_valid_protocol():
    """The tutorial's JSON (the start answer) and the request / answer lines it shows validate against
    schema/protocol.schema.json."""
    from harness import schemas

    def valid(message, kind):
        errors = schemas.describe_errors(schemas.validator("protocol.schema.json", f"/$defs/{kind}"), message)
        assert not errors, f"{kind}: {message}: {errors}"

    text = TUTORIAL_DOC.read_text()
    blocks = re.findall(r"```json\n(.*?)```", text, re.S)
    assert blocks
    for block in blocks:
        valid(json.loads(block), "start_response")
    outputs = {m.group(2): m.group(3) for m in OUTPUT_BLOCK.finditer(text)}
    for line in outputs["dump"].splitlines():
        request = json.loads(line)
        valid(request, f"{request['cmd']}_request")
    answers = [json.loads(line) for line in outputs["dumppipe"].splitlines()]
    valid(answers[0], "start_response")
    requests = [json.loads(line) for line in outputs["dump"].splitlines()[1:]]
    for request, answer in zip(requests, answers[1:], strict=True):
        valid(answer, f"{request['cmd']}_response")
