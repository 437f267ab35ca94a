"""Reports are written to a temporary file next to the target and renamed over it: a failure while writing
leaves the previous report whole, never half a file."""

import os
from pathlib import Path


def write(path, write_to):
    """Calls write_to(temporary path), then renames the temporary file to path."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        write_to(tmp)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
