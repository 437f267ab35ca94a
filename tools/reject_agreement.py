"""Corpus lint over a verify report: every must-reject vector gets the same answer from every runner.

    /usr/bin/python3 tools/reject_agreement.py [out/report.json]

A reject vector (decode-reject, encode-reject) at level must or should pins one error class, but the harness
judges each runner alone, and `expected-failures.txt` can hide a runner that answers another class. Runners
that answer the same bytes with different classes mean the spec left a hole there (issue 17: an object
array of count -1 was `malformed.tuple-offsets` in one runner and `invalid.tuple-type` in the others). This
check compares the runners' answers with each other: a vector whose runners gave two or more different
answers (an error class, or a decode where the others refused) is listed, and the exit status is 1.
Runners that skipped the vector or gave no answer (crash, timeout) are left out; `impl` vectors are
implementation-defined and not compared. Exit status: 0 all agree, 1 disagreements, 2 unreadable report.
"""

import json
import sys
from collections import defaultdict

REJECT_OPS = ("reject", "reject-encode")


def answer_class(answer):
    """'error:<class> ...' -> the class; a decode or encode that succeeded -> 'accepted'; skipped/none -> None."""
    if answer is None or answer == "skipped":
        return None
    if answer.startswith("error:"):
        return answer[len("error:"):].split()[0]
    return "accepted"


def disagreements(report: dict) -> list[tuple[str, str, dict]]:
    """[(vector id, op, {runner: answer class})] for each reject vector whose runners answered differently."""
    answers = defaultdict(dict)
    for v in report["verdicts"]:
        if v["op"] not in REJECT_OPS or v["level"] == "impl":
            continue
        cls = answer_class(v["answer"])
        if cls is not None:
            answers[(v["vector"], v["op"])][v["runner"]] = cls
    return [(vec, op, by_runner) for (vec, op), by_runner in sorted(answers.items())
            if len(set(by_runner.values())) > 1]


def main(argv: list[str]) -> int:
    path = argv[1] if len(argv) > 1 else "out/report.json"
    try:
        with open(path, encoding="utf-8") as f:
            report = json.load(f)
    except (OSError, ValueError) as e:
        print(f"reject_agreement: cannot read {path}: {e}", file=sys.stderr)
        return 2
    found = disagreements(report)
    runners = sorted({v["runner"] for v in report["verdicts"]})
    for vec, op, by_runner in found:
        print(f"{vec} {op}: " + ", ".join(f"{r}={c}" for r, c in sorted(by_runner.items())))
    if found:
        print(f"reject_agreement: {len(found)} must-reject vector(s) get different answers from {', '.join(runners)}; "
              "pin one class in spec.md and fix the runners", file=sys.stderr)
        return 1
    print(f"reject_agreement: every must-reject vector got one answer from {', '.join(runners) or 'no runner'}",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
