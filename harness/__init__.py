"""Conformance harness: runs runners over the golden-vector corpus and judges their answers.

python3 -m harness verify is the pipeline of harness/verify.py (verify_plan -> verify_run -> verify_judge ->
verify_report); code outside harness/ (fuzz/, tools/, bench/) uses harness/api.py, the public API."""

VERSION = "0.1.0"
