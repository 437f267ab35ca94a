"""Read the frame-layer constants of an apache/ignite-3 clone at each release and print them as registry data.

    python3 tools/ignite_frame_registry.py --ignite /path/to/ignite-3.git [--refs 3.0.0 3.1.0 main=<commit>]

Prints the `frames` object of schema/registry.json: op codes, server ops, response flags, feature bits,
handshake and error extension keys, client codes and error groups, each with the first of the given releases
that has it (`since`) and the first that no longer has it (`removed`). The registry is data a maintainer reviews;
this tool only saves reading seven Java files three times when a release adds a constant. It reads the sources
with `git show` and regular expressions over one declaration form per file, and fails when a file has none.
"""
import argparse
import json
import re
import subprocess
import sys

# Each section: the file that declares it (found by name anywhere in the tree: some moved between releases),
# the declaration pattern (groups: name, value) and the JSON key of the value.
PROTO = r"public static final int ([A-Z][A-Z0-9_]*) = (-?\d+);"
SECTIONS = {
    "client_ops": ("ClientOp.java", PROTO, "code"),
    "server_ops": ("ServerOp.java", PROTO, "code"),
    "response_flags": ("proto/ResponseFlags.java", r"static final int ([A-Z_]+)_FLAG = (\d+);", "bit_value"),
    "server_op_response_flags": ("ServerOpResponseFlags.java", r"static final int ([A-Z_]+)_FLAG = (\d+);",
                                 "bit_value"),
    "features": ("ProtocolBitmaskFeature.java", r"^\s+([A-Z][A-Z0-9_]*)\((\d+)\)[,;]", "bit"),
    "handshake_extensions": ("HandshakeExtension.java", r"^\s+([A-Z][A-Z0-9_]*)\(\"([a-z0-9-]+)\"", "key"),
    "error_extensions": ("ErrorExtensions.java", r"static final String ([A-Z][A-Z0-9_]*) = \"([a-z0-9-]+)\";",
                         "key"),
    "error_groups": ("lang/ErrorGroups.java", r"registerGroup\(\"([A-Z]+)\", \(short\) (\d+)\)", "code"),
    # the resource ids of a request's tx field that start its direct-mapping forms (spec 11.6)
    "tx_ids": ("proto/tx/ClientTxUtils.java", r"static final long TX_ID_([A-Z_]+) = (-?\d+)L;", "id"),
}
# Not declared in one Java file: each client states its own code where it writes the handshake.
CLIENT_CODES = [
    ("GENERAL", "HandshakeUtils.java", r"CLIENT_TYPE_GENERAL = (\d+);"),
    ("ODBC", "odbc/sql_connection.cpp", r"ODBC_CLIENT = (\d+);"),
    ("PYTHON_DBAPI", "cpp_module/node_connection.h", r"CLIENT_CODE = (\d+);"),
]
IGNORED = {"RESERVED_EXTENSION_RANGE_START", "RESERVED_EXTENSION_RANGE_END"}


def git(repo, *args):
    return subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True, text=True).stdout


def find(repo, ref, suffix, files):
    hits = [f for f in files if f.endswith("/" + suffix) and "/test" not in f and "/src/test/" not in f]
    return git(repo, "show", f"{ref}:{hits[0]}") if hits else None


def constants(repo, ref):
    """{section: {name: value}} at one ref; a section whose file the ref lacks is empty."""
    files = git(repo, "ls-tree", "-r", "--name-only", ref).splitlines()
    found = {}
    for section, (suffix, pattern, _) in SECTIONS.items():
        text = find(repo, ref, suffix, files)
        pairs = re.findall(pattern, text, re.M) if text else []
        if text and not pairs:
            sys.exit(f"{ref}: no declaration matched in {suffix}: the pattern needs updating")
        found[section] = {n: v for n, v in pairs if n not in IGNORED}
    found["client_codes"] = {}
    for name, suffix, pattern in CLIENT_CODES:
        text = find(repo, ref, suffix, files)
        m = re.search(pattern, text) if text else None
        if m:
            found["client_codes"][name] = m.group(1)
    return found


def registry(repo, refs):
    """The frames object: per section, entries ordered by value, with since/removed among refs."""
    seen = [(label, constants(repo, ref)) for label, ref in refs]
    out = {"releases": [{"id": label, "commit": git(repo, "rev-parse", f"{ref}^{{commit}}").strip()[:11],
                         "date": git(repo, "log", "-1", "--format=%cs", f"{ref}^{{commit}}").strip()}
                        for label, ref in refs]}
    keys = dict((s, k) for s, (_, _, k) in SECTIONS.items())
    keys["client_codes"] = "code"
    for section, key in keys.items():
        entries = {}
        for i, (label, found) in enumerate(seen):
            for name, value in found[section].items():
                entry = entries.setdefault((name, value), {"name": name, key: value, "since": label})
                entry["last"] = i
        rows = []
        for entry in entries.values():
            last = entry.pop("last")
            if last + 1 < len(seen):
                entry["removed"] = seen[last + 1][0]
            if key != "key":
                entry[key] = int(entry[key])
            rows.append(entry)
        out[section] = sorted(rows, key=lambda e: (e[key], e["name"]))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ignite", required=True, help="a clone (or bare git dir) of apache/ignite-3")
    ap.add_argument("--refs", nargs="+", default=["3.0.0", "3.1.0", "main=HEAD"],
                    help="releases in order, each TAG or LABEL=REF (default: 3.0.0 3.1.0 main=HEAD)")
    args = ap.parse_args()
    refs = [tuple(r.split("=", 1)) if "=" in r else (r, r) for r in args.refs]
    print(json.dumps(registry(args.ignite, refs), indent=2))


if __name__ == "__main__":
    main()
