"""spec.md section 11.2's constant tables are rendered from schema/registry.json `frames`
(tools/spec_frame_tables.py): a registry change without the spec's fails here."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import spec_frame_tables  # noqa: E402


def test_spec_tables_equal_the_registry_rendering():
    proc = subprocess.run([sys.executable, str(ROOT / "tools/spec_frame_tables.py")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr


def test_every_registry_constant_reaches_the_rendering():
    frames = json.loads((ROOT / "schema/registry.json").read_text())["frames"]
    text = spec_frame_tables.render(frames)
    for key, _, columns in spec_frame_tables.TABLES:
        for entry in frames[key]:
            assert f"`{entry['name']}`" in text, (key, entry)
    # and the check notices a stale table: one feature renamed in a copy of the registry
    frames["features"][0]["name"] = "RENAMED"
    assert "`RENAMED`" in spec_frame_tables.render(frames)
