#!/usr/bin/python3
"""Test double for the fuzz tests: the python runner, relayed line by line, with one planted bug.

usage: planted_bug_runner.py NAME   (answers 'start' as NAME; env PLANTED_BUG selects the bug)
  PLANTED_BUG=uint32-decode   decoded ints at or above 2^32 come back one less (a width-handling slip)
  PLANTED_BUG=crash-on-date   the process exits when asked to encode a value containing a date
  PLANTED_BUG=crash-once-on-date   the same, the first time only (PLANTED_MARKER names a file that says it did)
  PLANTED_BUG=frame-last-extension   a decoded frame loses the last pair of its handshake extensions
  (unset)                     no bug: a faithful proxy
"""

import json
import os
import subprocess
import sys
from pathlib import Path

RUNNER_DIR = Path(__file__).resolve().parents[2] / "runners" / "python"


def lower_big_ints(value):
    if isinstance(value, list):
        return [lower_big_ints(v) for v in value]
    if isinstance(value, dict):
        if value.get("type") == "int" and int(value["value"]) >= 2 ** 32:
            return {**value, "value": str(int(value["value"]) - 1)}
        return {k: lower_big_ints(v) for k, v in value.items()}
    return value


def has_date(value):
    if isinstance(value, list):
        return any(has_date(v) for v in value)
    if isinstance(value, dict):
        return value.get("type") == "date" or any(has_date(v) for v in value.values())
    return False


def main():
    name, bug = sys.argv[1], os.environ.get("PLANTED_BUG", "")
    command = json.loads((RUNNER_DIR / "runner.json").read_text())["command"]
    inner = subprocess.Popen(command, cwd=RUNNER_DIR, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    for line in sys.stdin:
        request = json.loads(line)
        if bug in ("crash-on-date", "crash-once-on-date") and request.get("cmd") == "encode" and \
                has_date(request.get("values", request.get("fields"))):   # frames carry fields
            marker = Path(os.environ.get("PLANTED_MARKER", "/nonexistent/planted-marker"))
            if bug == "crash-on-date" or not marker.exists():
                if bug == "crash-once-on-date":
                    marker.write_text("crashed\n")
                print("planted bug: exiting on a date", file=sys.stderr)
                os._exit(70)
        inner.stdin.write(line)
        inner.stdin.flush()
        if request.get("cmd") == "stop":
            break
        answer = json.loads(inner.stdout.readline())
        if request["cmd"] == "start":
            answer["name"] = name
        elif bug == "uint32-decode" and "values" in answer:
            answer["values"] = lower_big_ints(answer["values"])
        elif bug == "frame-last-extension" and answer.get("fields", {}).get("extensions"):
            answer["fields"]["extensions"] = answer["fields"]["extensions"][:-1]
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
    inner.stdin.close()
    inner.wait()


if __name__ == "__main__":
    main()
