"""One batch through every runner: what must hold, and every op where it does not.

For each element (era, value) the generator's byte builder (generator/encode.py, shared with no runner; for a
frame element generator/frames.py) gives the expected canonical bytes or the error class an encoder must refuse with. Then, judged by harness/judge.py:
  - every runner's encode output equals those bytes (a must-refuse value: every runner refuses with that class);
  - every runner decodes those bytes to the value;
  - every runner rejects a strict prefix of them as malformed.truncated (GEN-TRUNC);
  - any runner bytes that differ from the expected ones are decoded by every runner too (they must agree).
"""

import zlib
from dataclasses import dataclass

from generator import encode, ignite
from harness.api import Op, Outcome

from fuzz import frames
from fuzz.limits import tolerated


@dataclass
class Failure:
    index: int          # the element's position in its batch
    runner: str
    op: str
    outcome: Outcome


def vectors(batch):
    """[(value vector or encode-reject vector, truncation vector or None)], one per element."""
    out = []
    for i, (era, value, kind) in enumerate(batch):
        if kind == "frame":   # a message as fields (fuzz/frames.py)
            out.append(frames.vector_pair(i, value))
            continue
        base = {"id": f"fuzz.{i}", "era": era, "level": "must", "rules": [], "since": "0", "values": [value]}
        try:
            data = encode.canonical(value)
        except ignite.Invalid as e:
            out.append(({**base, "kind": "encode-reject", "error": e.error_class}, None))
            continue
        vector = {**base, "kind": "value", "canonical": data.hex(), "variants": []}
        cut = None
        if len(data) >= 2:
            prefix = data[:cut_point(data)]
            cut = {**base, "kind": "decode-reject", "hex": prefix.hex(), "error": "malformed.truncated"}
        out.append((vector, cut))
    return out


def cut_point(data):
    """A strict, non-empty prefix length, chosen from the bytes (so a shrunk value keeps a stable cut)."""
    choice = zlib.crc32(data)
    return (1, len(data) - 1, 1 + choice % (len(data) - 1))[choice % 3]


def first_ops(pairs):
    ops = []
    for vector, cut in pairs:
        if vector["kind"] == "encode-reject":
            ops.append(Op(vector, "reject-encode", "encode"))
            continue
        ops += [Op(vector, "encode", "encode"), Op(vector, "decode", "decode", hex=vector["canonical"])]
        if cut:
            ops.append(Op(cut, "reject", "decode", hex=cut["hex"]))
    return ops


def cross_ops(pairs, outcomes):
    """Decode ops for bytes a runner wrote that differ from the canonical ones (normally none)."""
    ops = []
    for vector, _ in pairs:
        if vector["kind"] != "value":
            continue
        seen = {vector["canonical"]}
        for runner, found in outcomes.items():
            written = found.get((vector["id"], "encode"))
            if written is not None and written.output is not None and written.output not in seen:
                seen.add(written.output)
                ops.append(Op(vector, f"decode[from-{runner}]", "decode", hex=written.output))
    return ops


def check(pool, batch, strict=False):
    """(failures, requests sent) for one batch."""
    pairs = vectors(batch)
    ops = first_ops(pairs)
    names = [c.name for c in pool.configs]
    outcomes = pool.exchange({n: ops for n in names})
    extra = cross_ops(pairs, outcomes)
    requests = len(ops) * len(names)
    if extra:
        more = pool.exchange({n: extra for n in names})
        for n in names:
            outcomes[n].update(more[n])
        requests += len(extra) * len(names)
    failures = []
    for n in names:
        for op in ops + extra:
            outcome = outcomes[n][op.key]
            if outcome.verdict == "pass":
                continue
            index = int(op.vector_id.split(".")[1])
            if not strict and tolerated(n, op.name, outcome, batch[index][1]):
                continue
            failures.append(Failure(index, n, op.name, outcome))
    return failures, requests
