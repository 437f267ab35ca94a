"""Floor for the Python runner: the bare interpreter starting and parsing every corpus file once."""
import json
import sys
from pathlib import Path

count = sum(len(json.loads(p.read_bytes())["vectors"]) for p in sorted(Path(sys.argv[1]).glob("*.json"))
            if p.name != "manifest.json")
print(count)
