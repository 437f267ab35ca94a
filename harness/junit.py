"""junit.xml: one testsuite per runner, one testcase per vector + op, for CI test-report viewers."""

import xml.etree.ElementTree as ET

from harness import atomic
from harness.results import FAILING, FAULTS


def write(path, runs):
    """runs: [(runner name, [Verdict])]."""
    root = ET.Element("testsuites")
    for name, verdicts in runs:
        failures = sum(v.verdict in ("fail", "xpass", "skip") for v in verdicts)
        errors = sum(v.verdict in FAULTS for v in verdicts)
        skipped = sum(v.verdict in ("xfail", "unclaimed") for v in verdicts)
        suite = ET.SubElement(root, "testsuite", name=name, tests=str(len(verdicts)), failures=str(failures),
                              errors=str(errors), skipped=str(skipped))
        for v in verdicts:
            case = ET.SubElement(suite, "testcase", classname=f"{name}.{v.vector.split('.')[0]}",
                                 name=f"{v.vector} {v.op}")
            text = "\n".join([v.detail] + v.diagnosis)
            if v.verdict in FAILING:
                # Transport faults are errors (the runner broke); wrong answers and skips are failures.
                tag = "error" if v.verdict in FAULTS else "failure"
                element = ET.SubElement(case, tag, type=v.verdict, message=_clean(f"{v.verdict}: {v.detail}"))
                element.text = _clean(text)
            elif v.verdict == "xfail":
                ET.SubElement(case, "skipped", message=_clean(f"expected failure ({v.expectation}): {v.detail}"))
            elif v.verdict == "unclaimed":
                ET.SubElement(case, "skipped", message=_clean(f"unclaimed: {v.detail}"))
            elif v.verdict == "info":
                ET.SubElement(case, "system-out").text = _clean(f"impl-level, {v.outcome}: {v.detail}")
    atomic.write(path, lambda tmp: ET.ElementTree(root).write(tmp, encoding="utf-8", xml_declaration=True))


def _clean(text):
    # XML 1.0 cannot carry most control characters; runner messages may contain them.
    return "".join(c if c in "\t\n\r" or ord(c) >= 0x20 else f"\\x{ord(c):02x}" for c in text)
