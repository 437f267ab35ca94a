import sys
from pathlib import Path

# Tests import the generator and the harness as packages from the repository root.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def pytest_configure(config):
    # Hypothesis 6.67 (Debian 12) registers its own global Random with register_random the first time a seeded
    # test runs in a process, and then warns that nothing else refers to it. In a pytest-xdist worker a fuzz test
    # can be that first one: the warning is about Hypothesis's object, not ours.
    config.addinivalue_line(
        "filterwarnings", "ignore:It looks like `register_random` was passed:hypothesis.errors.HypothesisWarning")
