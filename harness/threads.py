"""Threads with a large stack: deeply nested (512-level) values recurse through json, validation and judging.
Used by the harness, the fuzzer and the dashboard alike."""
import threading

STACK_SIZE = 256 << 20


def start(targets, daemon=False):
    """Starts each callable on its own thread with a STACK_SIZE stack; returns the threads."""
    old = threading.stack_size(STACK_SIZE)
    try:
        threads = [threading.Thread(target=target, daemon=daemon) for target in targets]
        for t in threads:
            t.start()
    finally:
        threading.stack_size(old)
    return threads


def run_all(targets):
    """Runs each callable on its own large-stack thread and waits for all of them."""
    for t in start(targets):
        t.join()
