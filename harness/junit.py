"""junit.xml: one testsuite per runner, one testcase per vector + op, for CI test-report viewers.

Written as text, not through xml.etree: a full run has 170,000 testcases and ElementTree's pure-Python
serialiser took over a second for them. The text is what ElementTree writes for the same elements (attributes
in order, `<a b="c" />` for an empty element, its escaping), which tests/test_harness_units.py checks.
"""

from harness import atomic
from harness.results import FAILING, FAULTS, counts

_ATTRIB = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "\r": "&#13;", "\n": "&#10;",
                         "\t": "&#09;"})
_TEXT = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})
# XML 1.0 cannot carry most control characters; runner messages may contain them.
_CONTROL = str.maketrans({c: f"\\x{c:02x}" for c in range(0x20) if chr(c) not in "\t\n\r"})


def write(path, runs):
    """runs: [(runner name, [Verdict])], or [(runner name, [Verdict], suite(name, verdicts) made before, or None)]."""
    def to(tmp):
        with open(tmp, "w", encoding="utf-8", errors="xmlcharrefreplace") as f:
            f.write("<?xml version='1.0' encoding='utf-8'?>\n")
            f.write("<testsuites>" if runs else "<testsuites />")
            for name, verdicts, *made in runs:
                if made and made[0] is not None:
                    f.writelines(made[0])
                else:
                    _suite(f.write, name, verdicts)
            if runs:
                f.write("</testsuites>")
    atomic.write(path, to)


def suite(name, verdicts, shared=None):
    """A runner's testsuite element, as text pieces for write(). shared: what shared_pieces() gave, for the texts
    that every runner's suite has."""
    pieces = []
    _suite(pieces.append, name, verdicts, shared)
    return pieces


def shared_pieces():
    """({vector id: (its family, its escaped text)}, {op name: its escaped text}): the same in every runner's suite,
    made once per run (dicts: threads may use them at once)."""
    return {}, {}


def _suite(write, name, verdicts, shared=None):
    count = counts(verdicts)
    failures = count["fail"] + count["xpass"] + count["skip"]
    errors = sum(count[k] for k in FAULTS)
    skipped = count["xfail"] + count["unclaimed"]
    head = (f'<testsuite name="{_attr(name)}" tests="{len(verdicts)}" failures="{failures}" errors="{errors}" '
            f'skipped="{skipped}"')
    if not verdicts:
        write(head + " />")
        return
    write(head + ">")
    vectors, ops = shared or shared_pieces()
    starts = {}     # family -> its testcases' text up to the name
    lines = []
    for v in verdicts:
        vector = vectors.get(v.vector)
        if vector is None:
            vector = vectors[v.vector] = (v.vector.split(".")[0], _attr(v.vector) + " ")
        op = ops.get(v.op)
        if op is None:
            op = ops[v.op] = _attr(v.op) + '"'
        start = starts.get(vector[0])
        if start is None:
            start = starts[vector[0]] = f'<testcase classname="{_attr(f"{name}.{vector[0]}")}" name="'
        case = start + vector[1] + op
        if v.verdict == "pass":
            lines.append(case + " />")
            continue
        if v.verdict in FAILING:
            # Transport faults are errors (the runner broke); wrong answers and skips are failures.
            tag = "error" if v.verdict in FAULTS else "failure"
            inner = (f'<{tag} type="{_attr(v.verdict)}" message="{_attr(_clean(f"{v.verdict}: {v.detail}"))}"'
                     + _body(tag, _clean("\n".join([v.detail] + v.diagnosis))))
        elif v.verdict == "xfail":
            inner = f'<skipped message="{_attr(_clean(f"expected failure ({v.expectation}): {v.detail}"))}" />'
        elif v.verdict == "unclaimed":
            inner = f'<skipped message="{_attr(_clean(f"unclaimed: {v.detail}"))}" />'
        elif v.verdict == "info":
            inner = "<system-out" + _body("system-out", _clean(f"impl-level, {v.outcome}: {v.detail}"))
        elif v.verdict == "coarse":     # passed: the class judged on the family the runner declared
            inner = "<system-out" + _body("system-out", _clean(f"coarse: {v.detail}"))
        else:
            lines.append(case + " />")
            continue
        lines.append(f"{case}>{inner}</testcase>")
        if len(lines) >= 1024:
            write("".join(lines))
            lines.clear()
    write("".join(lines) + "</testsuite>")


def _body(tag, text):
    """The rest of an element after its attributes: its text, or ` />` when it has none."""
    return f">{text.translate(_TEXT)}</{tag}>" if text else " />"


def _attr(text):
    return text.translate(_ATTRIB)


def _clean(text):
    return text.translate(_CONTROL)


def escape_attr(text):
    """Runner or driver text as an XML attribute value (harness/node_run.py's JUnit uses it too)."""
    return _attr(_clean(text))


def escape_text(text):
    """Runner or driver text as XML element content."""
    return _clean(text).translate(_TEXT)
