"""Verdicts grouped into the six states the reports show, each with a colour, a symbol and a word."""

# verdict -> state. A state is shown with colour AND text, never colour alone.
STATE = {
    "pass": "pass", "info": "info", "coarse": "coarse",
    "xfail": "xfail",
    "fail": "fail", "xpass": "fail", "skip": "fail",
    "crash": "crash", "timeout": "crash", "protocol-error": "crash", "abandoned": "crash",
    "unclaimed": "unclaimed",
}
# Worst first: the state of a group of verdicts is the worst state in it. 'info' (what a runner did where the spec
# lets it choose) is no worse than a pass: a group reads 'info' only when none of it passed. 'coarse' (rejected,
# the class judged on the family the runner declared) is not failing, yet less than an exact pass.
SEVERITY = ("crash", "fail", "xfail", "unclaimed", "coarse", "pass", "info")
FAILING = ("fail", "xpass", "skip", "crash", "timeout", "protocol-error", "abandoned")
VERDICTS = ("pass", "coarse", "fail", "xfail", "xpass", "skip", "crash", "timeout", "protocol-error", "abandoned", "info",
            "unclaimed")


def nothing_checked(counts):
    """Every verdict unclaimed (or none at all): the runner claims nothing of what was run, so nothing was compared."""
    return not any(n for k, n in counts.items() if k != "unclaimed")


def worst(verdicts):
    """The worst state among verdict names, or None for none."""
    states = {STATE.get(v, "crash") for v in verdicts}
    return next((s for s in SEVERITY if s in states), None)
