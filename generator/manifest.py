"""vectors/manifest.json: what a corpus release is, file by file (spec.md section 8.3).

Rendered from the exact texts the generator writes, so the drift check covers it like any corpus file.
"""
import hashlib
import json

from . import ignite

NAME = "manifest.json"


def render(files: dict[str, str]) -> str:
    entries = []
    for name in sorted(files):
        data = files[name].encode("utf-8")
        entries.append({"path": name, "sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data),
                        "vectors": len(json.loads(files[name])["vectors"])})
    manifest = {"manifest": 1, "corpus_version": ignite.REGISTRY["corpus_version"],
                "spec_version": ignite.REGISTRY["spec_version"], "files": entries}
    # One file per line, like the corpus files: a release diff shows which files changed.
    lines = ",\n".join("    " + json.dumps(e, separators=(", ", ": ")) for e in entries)
    head = json.dumps({k: v for k, v in manifest.items() if k != "files"})[:-1]
    return f'{head}, "files": [\n{lines}\n]}}\n'
