"""Conformance harness: runs runners over the golden-vector corpus and judges their answers."""

VERSION = "0.1.0"
