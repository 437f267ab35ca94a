#!/usr/bin/python3
"""The README's failure example made real: runs the Python runner (runners/python, its runner.json command, from
the directory the harness starts runners in) and passes its answers through, but for an encode answer, where it
writes the uint16 2005 (cd 07 d5) as an int32 (d2 00 00 07 d5), as a client that always writes 32-bit ints would."""

import json
import subprocess
import sys
from pathlib import Path

RUNNER = Path(__file__).resolve().parents[2] / "runners" / "python"


def main():
    command = json.loads((RUNNER / "runner.json").read_text())["command"]
    runner = subprocess.Popen(command, cwd=RUNNER, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    for line in sys.stdin:
        runner.stdin.write(line)
        runner.stdin.flush()
        answer = runner.stdout.readline()
        if json.loads(line)["cmd"] == "encode":
            answer = answer.replace("cd07d5", "d2000007d5")
        sys.stdout.write(answer)
        sys.stdout.flush()
    runner.stdin.close()
    runner.wait()


if __name__ == "__main__":
    main()
