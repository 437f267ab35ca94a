"""Why a verify run ended before its end: SIGINT / SIGTERM (cli.main installs on_signal), or an internal error of
the harness. report.json's "incomplete" gives these words, and the exit status follows from them."""

import signal
import traceback

from harness.runner_process import stop_all

INTERNAL_ERROR = 3
received = []       # signals received by this run


def on_signal(signum, frame):
    received.append(signum)
    stop_all()


def interrupted():
    """'interrupted by SIGINT' (or SIGTERM) once a signal stopped the run, else None."""
    return f"interrupted by {signal.Signals(received[0]).name}" if received else None


def internal_error(error, stderr):
    """Prints a harness bug's traceback; the words report.json's "incomplete" gives for it."""
    traceback.print_exception(type(error), error, error.__traceback__, file=stderr)
    return f"internal error: {type(error).__name__}: {str(error)[:300]}"


def exit_status():
    """An incomplete run's exit status: 128 + the signal that stopped it (130, 143), else INTERNAL_ERROR."""
    return 128 + received[0] if received else INTERNAL_ERROR
