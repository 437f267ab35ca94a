"""harness verify reads as a pipeline (harness/verify.py): following a run's calls, the pipeline enters each stage
module once, in order, and no stage calls into another (each takes the previous one's output instead)."""

import sys
import threading

from harness_fixtures.harness_helpers import oracle_command, run

STAGES = ("harness.verify_plan", "harness.verify_run", "harness.verify_judge", "harness.verify_report")


def test_each_stage_is_entered_once_in_order(tmp_path):
    entered, crossed = [], []

    def profile(frame, event, arg):
        if event != "call" or frame.f_back is None:
            return
        callee, caller = frame.f_globals.get("__name__"), frame.f_back.f_globals.get("__name__")
        if callee == caller or callee not in STAGES:
            return
        if caller == "harness.verify":
            entered.append(callee)
        elif caller in STAGES:
            crossed.append((caller, callee))

    threading.setprofile(profile)
    sys.setprofile(profile)
    try:    # two runners: the matrix (in the judge stage) runs too; the profiler slows the harness: a generous timeout
        r = run(tmp_path, runners="oracle,other", commands=[oracle_command(), oracle_command(name="other")],
                timeout=60)
    finally:
        sys.setprofile(None)
        threading.setprofile(None)
    assert r.code == 0, r.stdout
    assert r.report["matrix"]["cells"], "the matrix ran"
    assert entered == list(STAGES)
    assert crossed == []
