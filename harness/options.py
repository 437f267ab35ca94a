"""Range-checked numbers for argparse, shared by the harness, fuzz and bench command lines: a bad value is a
usage error naming the option, never a traceback or a run that blames every verdict on the runner."""

import argparse
import math


def number(kind, low, high):
    """An argparse type: a finite number of `kind` (int or float) in [low, high]."""
    def parse(text):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a{'n integer' if kind is int else ' number'}")
        if not math.isfinite(value) or not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{text!r} is out of range: expected {low:g} to {high:g}")
        return value
    return parse


SECONDS = number(float, 0.001, 86400)


class UsageError(Exception):
    """A command line that cannot be run as given (exit status 2, the message after 'harness: ')."""
