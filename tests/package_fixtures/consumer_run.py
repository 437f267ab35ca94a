"""For tests/test_packages_{go,rust,nuget}.py: a consumer's build-and-test command, its output shown on failure."""
import subprocess

import pytest


def run(cmd, cwd, env):
    """Runs cmd in cwd; a non-zero exit fails the test with the end of its output."""
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        pytest.fail(f"{' '.join(map(str, cmd))} exited {done.returncode} in {cwd}\n"
                    f"{done.stdout[-8000:]}\n{done.stderr[-8000:]}")
    return done
