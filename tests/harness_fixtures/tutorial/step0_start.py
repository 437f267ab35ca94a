"""Tutorial step 0: a runner that only answers 'start'. It declares no capabilities, so nothing else is sent."""

import json
import sys


def reply(message):
    sys.stdout.write(json.dumps(message) + "\n")   # one line per message, on stdout only
    sys.stdout.flush()                             # the harness waits for each line: flush every time


def main():
    for line in sys.stdin:
        request = json.loads(line)
        if request["cmd"] == "start":
            reply({"protocol": 1, "name": "tutorial", "language": "python", "library": "none",
                   "library_version": "0", "corpus_majors": [1], "capabilities": {"ops": [], "eras": []}})
        elif request["cmd"] == "stop":
            return


if __name__ == "__main__":
    main()
