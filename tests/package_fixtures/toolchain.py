"""For tests/test_packages_{go,rust,nuget}.py: a toolchain that must be there, and its commands' output on failure."""
import shutil
import subprocess

import pytest


def need(tool, install):
    """Fails the test (never a silent skip) when tool is not on PATH, saying what to install."""
    if shutil.which(tool) is None:
        pytest.fail(f"{tool} is not on PATH: install {install}")


def run(cmd, cwd, env):
    """Runs cmd in cwd; a non-zero exit fails the test with the end of its output."""
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        pytest.fail(f"{' '.join(map(str, cmd))} exited {done.returncode} in {cwd}\n"
                    f"{done.stdout[-8000:]}\n{done.stderr[-8000:]}")
    return done
