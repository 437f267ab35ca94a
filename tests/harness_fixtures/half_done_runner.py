#!/usr/bin/python3
"""A deliberately half-done runner for the capability tests: the Python runner, claiming only era 3.0 and the
msgpack format (no Binary Tuples), under the name 'half-done'. Everything it claims it answers correctly."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "runners" / "python"))

import runner  # noqa: E402

_full = runner.start_response


def start_response():
    answer = _full()
    answer["name"] = "half-done"
    answer["capabilities"] = {"ops": ["encode", "decode"], "eras": ["3.0"], "formats": ["msgpack"]}
    return answer


runner.start_response = start_response

if __name__ == "__main__":
    sys.exit(runner.main())
