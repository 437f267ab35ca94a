#!/usr/bin/python3
"""Runs `python3 -m harness ARGS` in this process, then writes the process's peak RSS (VmHWM, the kernel's
high-water mark: all threads, never misses a peak) as the last stderr line: "peak-rss-kib N". Runners are
other processes and do not count."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent))

from harness import cli  # noqa: E402

code = cli.main(sys.argv[1:])
sys.stdout.flush()
with open("/proc/self/status") as f:
    hwm = next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))
print(f"peak-rss-kib {hwm}", file=sys.stderr)
sys.exit(code)
