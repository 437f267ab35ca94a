#!/usr/bin/python3
"""Write runners/ignite-java/expected-failures-<ref>.txt from a run's report.json, grouped by cause.

    python3 runners/ignite-java/deviations.py --ref 3.1.0 out/official/3.1.0/report.json

Every failing verdict (fail, skip) of ignite-java must match exactly one cause of CAUSES below, by what the client
answered (the harness's detail: the exception, its message and the client frame it came through, or the values it
returned) and, where the answer alone does not say it, by the vector's id. A verdict no cause matches is printed and
the file is not written (exit 1): a new deviation needs a human to find its cause in the upstream code first. The
upstream lines in the headers are looked up in the ref's own tree (tools/ignite_upstream.py), so they are that
ref's lines. Header format: /work/notes/cause-format.md (tools/official_table.py reads it).
"""
import argparse
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

UNPACKER = "modules/client-common/src/main/java/org/apache/ignite/internal/client/proto/ClientMessageUnpacker.java"
PACKER = "modules/client-common/src/main/java/org/apache/ignite/internal/client/proto/ClientMessagePacker.java"
PARSER = "modules/binary-tuple/src/main/java/org/apache/ignite/internal/binarytuple/BinaryTupleParser.java"
READER = "modules/binary-tuple/src/main/java/org/apache/ignite/internal/binarytuple/BinaryTupleReader.java"
BUILDER = "modules/binary-tuple/src/main/java/org/apache/ignite/internal/binarytuple/BinaryTupleBuilder.java"
COMMON = "modules/binary-tuple/src/main/java/org/apache/ignite/internal/binarytuple/BinaryTupleCommon.java"
SRS = "modules/client-common/src/main/java/org/apache/ignite/internal/client/proto/StreamerReceiverSerializer.java"
CBTU = "modules/client-common/src/main/java/org/apache/ignite/internal/client/proto/ClientBinaryTupleUtils.java"
# The collection reader moved from ClientBinaryTupleUtils (3.0.0) to StreamerReceiverSerializer (0cac806efaf, 3.1.0).
COLLECTION = {"3.0.0": CBTU, "3.1.0": SRS, "main": SRS}


def skipped(pattern):
    return lambda v: v["verdict"] == "skip" and re.search(pattern, v.get("detail", "")) is not None


def failed(pattern, vector=None, op=None):
    def match(v):
        return (v["verdict"] == "fail" and re.search(pattern, v.get("detail", "")) is not None
                and (vector is None or re.search(vector, v["vector"]) is not None)
                and (op is None or re.match(op, v["op"]) is not None))
    return match


# Each cause: title (the same in every ref's file), fixed-on-main, upstream [(path or {ref: path}, needle)], the
# matcher, the spec rules the deviation breaks (registry.json ids), and the comment lines.
CAUSES = [
    dict(title="no array or map API in ClientMessagePacker / ClientMessageUnpacker", rules="MP-ARRAY-CANON, MP-MAP-CANON", fixed="n/a",
         upstream=[(UNPACKER, "public class ClientMessageUnpacker"), (PACKER, "public class ClientMessagePacker")],
         match=skipped(r"has no array or map header (reader|writer)"),
         notes=["The client's packer and unpacker have no array or map header method (Ignite messages carry counts as",
                "ints, never MessagePack arrays or maps), so the adapter cannot read or write a value holding one:",
                "answered skipped, never re-implemented."]),
    dict(title="no writer for integers outside int64 in ClientMessagePacker", rules="MP-INT-U64, MP-INT-RANGE", fixed="n/a",
         upstream=[(PACKER, "public void packLong(long v)")],
         match=skipped(r"no writer for integers outside int64"),
         notes=["packLong(long) is the widest integer writer: 2^63..2^64-1 (uint64) cannot be written, and a value",
                "outside int64/uint64 cannot be handed to the client at all (so no unrepresentable answer)."]),
    dict(title="ext codes outside a byte cannot be handed to packExtensionTypeHeader", rules="MP-EXT-CODE", fixed="n/a",
         upstream=[(PACKER, "public void packExtensionTypeHeader(byte extType, int payloadLen)")],
         match=skipped(r"packExtensionTypeHeader takes a byte code"),
         notes=["The code parameter is a Java byte: the refusal happens in the adapter's conversion, not the client."]),
    dict(title="no writer for Ignite types the 3.0 era does not assign", rules="EXT-ERA", fixed="n/a",
         upstream=[(PACKER, "public void packUuid(UUID val)")],
         match=skipped(r"ClientMessagePacker has no writer for \w+ of era"),
         notes=["The 3.0 packer writes only UUID and BITMASK exts (packUuid, packBitSet); an Ignite type of another",
                "era has no method, so the refusal is the adapter's (skipped), not the client's."]),
    dict(title="values the client's Java types cannot hold", rules="BT-INT, BT-DATE, BT-TIME, BT-TIMESTAMP, BT-DURATION, BT-PERIOD", fixed="n/a",
         upstream=[(BUILDER, "public BinaryTupleBuilder appendDate(LocalDate value)")],
         match=skipped(r"the client's Java type for \w+ cannot hold (the value|\w+ = )|java\.time normalises nanos"),
         notes=["The builder takes java.time and Java primitive values: an INT8 of 300, month 13 or nanos 10^9 cannot be",
                "constructed (java.time throws in the adapter, or would normalise the nanos), so the client never sees",
                "the value and no class is answered."]),
    dict(title="uint64 read as a signed int64", rules="MP-INT-U64", fixed="no",
         upstream=[(UNPACKER, "case Code.UINT64:")],
         match=failed(r"values differ", vector=r"^(int\.|upstream\.dotnet\.unsigned)", op=r"decode"),
         notes=["unpackLong reads cf with readLong: 2^63..2^64-1 come back negative (Ignite has no unsigned type;",
                "the spec says uint64 values are read as their value)."]),
    dict(title="ill-formed UTF-8 decoded with replacement", rules="MP-STR-INVALID, BT-STRING-INVALID", fixed="no",
         upstream=[(UNPACKER, "String res = buf.toString(pos, len, StandardCharsets.UTF_8);"),
                   (PARSER, "return new String(bytes, begin, len, StandardCharsets.UTF_8);")],
         match=failed(r"expected error invalid\.utf8, but it decoded"),
         notes=["unpackString and BinaryTupleParser.stringValue decode with U+FFFD replacement (SHOULD-level rules)."]),
    dict(title="a cut str surfaces as StringIndexOutOfBoundsException", rules="GEN-TRUNC", fixed="no",
         upstream=[(UNPACKER, "String res = buf.toString(pos, len, StandardCharsets.UTF_8);")],
         match=skipped(r"StringIndexOutOfBoundsException.*via org\.apache\.ignite\.internal\.client\.proto\."),
         notes=["unpackString checks no length against the input: netty's toString fails in the JDK's String bounds",
                "check. Not a deliberate rejection, so answered skipped (official-runner rule), never mapped."]),
    dict(title="a cut MessagePack value surfaces as netty's IndexOutOfBoundsException", rules="GEN-TRUNC, BT-WRAPPER, BT-COLLECTION-COUNT, BT-COMPUTE-ARG-BIN", fixed="no",
         upstream=[(UNPACKER, "byte[] res = new byte[length];"), (UNPACKER, "public int unpackInt()")],
         match=skipped(r"java\.lang\.IndexOutOfBoundsException: .* at io\.netty\.buffer\..*"
                       r"via org\.apache\.ignite\.internal\.client\.proto\.ClientMessageUnpacker"),
         notes=["ClientMessageUnpacker reads through netty's ByteBuf with no check of its own: a cut value, a",
                "declared length past the input and a missing value where the form needs one all end in netty's",
                "bounds check (\"readerIndex(i) + length(n) exceeds writerIndex(w)\"). Answered skipped, never mapped."]),
    dict(title="a tuple offset past the input surfaces as a JDK bounds exception in BinaryTupleParser", rules="BT-OFFSETS, BT-OFFSETS-FIRST, BT-TRUNC", fixed="no",
         upstream=[(PARSER, "public void fetch(int index, Sink sink)"), (PARSER, "return new String(bytes, begin, len, StandardCharsets.UTF_8);")],
         match=skipped(r"(IndexOutOfBoundsException|IllegalArgumentException: newLimit).* via "
                       r"org\.apache\.ignite\.internal\.binarytuple\."),
         notes=["fetch checks only that end offsets do not decrease; an end past the input (or a cut value area) is",
                "read through ByteBuffer and fails in the JDK's bounds checks. Answered skipped, never mapped."]),
    dict(title="a negative count fails in the JDK (NegativeArraySizeException, ArrayList capacity)", rules="BT-WRAPPER, BT-COLLECTION-COUNT", fixed="no",
         upstream=[(UNPACKER, "Object[] args = new Object[size];"), (COLLECTION, "new ArrayList<>(")],
         match=skipped(r"NegativeArraySizeException|IllegalArgumentException: Illegal Capacity"),
         notes=["unpackObjectArrayFromBinaryTuple and readCollectionFromBinaryTuple take the count as given."]),
    dict(title="readPayload allocates the declared length before reading", rules="GEN-TRUNC", fixed="no",
         upstream=[(UNPACKER, "byte[] res = new byte[length];")],
         match=skipped(r"OutOfMemoryError"),
         notes=["A bin/ext declaring 2^31-1 bytes makes readPayload ask for a 2 GiB array (\"Requested array size",
                "exceeds VM limit\") before any byte is read."]),
    dict(title="a null collection item fails Objects.requireNonNull", rules="BT-COLLECTION-TYPE", fixed="no",
         upstream=[(COLLECTION, "Objects.requireNonNull(")],
         match=skipped(r"NullPointerException.*requireNonNull"),
         notes=["The collection writer's null check is an NPE without a message: not mapped to a class."]),
    dict(title="an end offset past the input is reported as the element's length", rules="BT-OFFSETS-FIRST", fixed="no",
         upstream=[(PARSER, "Invalid length for a tuple element")],
         match=failed(r"expected error malformed\.tuple-offsets, got error invalid\.tuple-length",
                      vector=r"^(?!bt\.tuple\.offsets\.decreasing$)"),
         notes=["BT-OFFSETS-FIRST picks malformed.tuple-offsets; Java's getters switch on the length before the",
                "buffer is touched, so the server answers \"Invalid length for a tuple element\" (spec 6.2.2 says so)."]),
    dict(title="corpus: bt.tuple.offsets.decreasing has two defects", rules="BT-OFFSETS", fixed="n/a",
         upstream=[(PARSER, "Invalid length for a tuple element")],
         match=failed(r"expected error malformed\.tuple-offsets, got error invalid\.tuple-length",
                      vector=r"^bt\.tuple\.offsets\.decreasing$"),
         notes=["00 02 01 07 08 as INT8 INT8: element 0 is 2 bytes for an INT8 as well as the decreasing pair; Java",
                "reports the length first (issue 36). The corpus-fix branch gives the vector one defect."]),
    dict(title="corpus: a cut UUID ext of impossible declared length has two defects", rules="GEN-TRUNC, EXT-LENGTH", fixed="n/a",
         upstream=[(UNPACKER, "if (len != 16) {")],
         match=failed(r"expected error malformed\.truncated, got error invalid\.ext-length"),
         notes=["c8 ffff 03: the declared length 65535 is impossible for a UUID and also past the input. Java's",
                "unpackUuid checks the declared length against 16 before any payload byte is read, so the server",
                "answers invalid.ext-length; the vector has two defects (spec 7: one defect per reject vector)."]),
    dict(title="one message for an 8-byte offset size and a 4-byte offset of 2^31 or more", rules="BT-HEADER-RESERVED, BT-OFFSETS", fixed="no",
         upstream=[(PARSER, "throw new BinaryTupleFormatException(\"Unsupported offset table size\");")],
         match=failed(r"expected error malformed\.tuple-(offsets|header), got error malformed "),
         notes=["\"Unsupported offset table size\" is thrown for a size class 3 header and for a negative 4-byte",
                "entry: the adapter answers the family 'malformed' and declares it in capabilities.coarse_classes",
                "(when the harness knows the member), where these verdicts become 'coarse' and leave this file."]),
    dict(title="reserved tuple header bits are not checked", rules="BT-HEADER-RESERVED", fixed="no",
         upstream=[(PARSER, "entrySize = 1 << (flags & BinaryTupleCommon.VARSIZE_MASK);")],
         match=failed(r"expected error malformed\.tuple-header, but it decoded"),
         notes=["The parser reads only bits 0-1 of the header (BT-HEADER-RESERVED is stricter than Java, spec 6.2.2)."]),
    dict(title="a negative DECIMAL scale element returns the stored value unrescaled", rules="BT-OBJECT-DECIMAL", fixed="no",
         upstream=[(READER, "return scale < 0 ? decimalValue")],
         match=lambda v: (failed(r"values differ", vector=r"^bt\.object-edge\.bt\.decimal\.tuple\.sm")(v)
                          or failed(r"expected error invalid\.tuple-value, but it decoded",
                                    vector=r"decimal\.object\.rescale-down")(v)),
         notes=["decimalValue(index, scale) rescales only when scale >= 0 (Integer.MIN_VALUE means 'as stored');",
                "BT-OBJECT-DECIMAL rescales to any scale element (spec 6.2.5 names the difference)."]),
    dict(title="TIMESTAMP and DURATION nanos outside 0..999999999 are normalised", rules="BT-TIMESTAMP, BT-DURATION", fixed="no",
         upstream=[(PARSER, "return Instant.ofEpochSecond(seconds, nanos);"), (PARSER, "return Duration.ofSeconds(seconds, nanos);")],
         match=failed(r"expected error invalid\.tuple-value, but it decoded",
                      vector=r"^bt\.(duration|timestamp)\.bad-nano|^bt\.profile\.python\.timestamp"),
         notes=["Instant.ofEpochSecond / Duration.ofSeconds normalise the nanos (issue 36: the .NET client writes",
                "-1 ns as (0, -1); the corpus-fix branch settles BT-TIMESTAMP / BT-DURATION from this)."]),
    dict(title="values after the form are left unread", rules="BT-WRAPPER, BT-COLLECTION-COUNT, BT-COMPUTE-ARG-BIN", fixed="no",
         upstream=[(UNPACKER, "public Object unpackObjectFromBinaryTuple()")],
         match=failed(r"expected error invalid\.tuple-type, but it decoded",
                      vector=r"extra-value$|nil-nil$|then-nil$|bin-nil$"),
         notes=["The client reads an object, object array, row, collection or compute argument as fields of a",
                "message and never looks past them (the next field follows), so a further value is not an error."]),
    dict(title="unpackBinaryHeader takes a fixstr header as bin", rules="BT-WRAPPER", fixed="no",
         upstream=[(UNPACKER, "if (Code.isFixedRaw(code)) { // FixRaw")],
         match=failed(r"expected error invalid\.tuple-type, but it decoded", vector=r"fixstr"),
         notes=["Code.isFixedRaw is the fixstr range a0-bf: a str of up to 31 bytes is read where a bin belongs."]),
    dict(title="a collection element count below 2 is not checked", rules="BT-COLLECTION-COUNT", fixed="no",
         upstream=[(COLLECTION, "List<R> readCollectionFromBinaryTuple(")],
         match=failed(r"expected error invalid\.tuple-type, got error invalid\.tuple-length",
                      vector=r"^bt\.collection\.elements-1$"),
         notes=["With element count 1 the reader still reads the count element (index 1 of a 1-element tuple; the",
                "assert is off in production) from the bytes after the offset table: an accidental 'Invalid length'."]),
    dict(title="the builder strips trailing zeros from every DECIMAL", rules="BT-DECIMAL, BT-COLLECTION-DECIMAL, BT-PROFILE-CPP-DECIMAL, BT-PROFILE-DOTNET-DECIMAL", fixed="no",
         upstream=[(BUILDER, "value = BinaryTupleCommon.shrinkDecimal(value, scale);"),
                   (COMMON, "public static BigDecimal shrinkDecimal(BigDecimal value, int scale)")],
         match=lambda v: (failed(r"bytes differ from canonical", op=r"encode")(v)
                          and (any("(DECIMAL)" in line for line in v.get("diagnosis", []))
                               or re.search(r"decimal", v["vector"]) is not None)),
         notes=["appendDecimal always applies shrinkDecimal, so a stored pair with trailing zeros (150, 2) or the",
                "cpp profile's column-scale pairs cannot be written as given (the java profile is the stripped one)."]),
    dict(title="DATE years outside -16384..16383 wrap silently", rules="BT-DATE-RANGE", fixed="no",
         upstream=[(BUILDER, "int date = (year << 9) | (month << 5) | day;")],
         match=failed(r"expected error unrepresentable, but it encoded", vector=r"^bt\.date\.year"),
         notes=["putDate shifts the year into 15 bits without a range check (spec BT-DATE-RANGE says so)."]),
]


GLOB_LIMIT = 200  # the harness's cap on the verdicts one id glob may match


def compress(vs, owner, cause):
    """Entries for one cause: an id glob 'prefix.*' (the widest, up to GLOB_LIMIT verdicts) where every verdict of
    that op under the prefix belongs to this cause, else the exact id. Same verdicts, far fewer lines."""
    by_op = {}
    for v in vs:
        by_op.setdefault(v["op"], []).append(v)
    lines = []
    for op in sorted(by_op):
        todo = sorted(by_op[op], key=lambda v: v["vector"])
        reasons = {v["vector"]: short(v) for v in todo}
        ids_of_op = [vec for (vec, o) in owner if o == op]
        done = set()
        for v in todo:
            if v["vector"] in done:
                continue
            best = None
            parts = v["vector"].split(".")
            for k in range(1, len(parts)):
                prefix = ".".join(parts[:k]) + "."
                under = [vec for vec in ids_of_op if vec.startswith(prefix)]
                if len(under) <= GLOB_LIMIT and all(owner[(vec, op)] == cause for vec in under):
                    best = (prefix, under)
                    break
            if best and len(best[1]) > 1:
                prefix, under = best
                why = {reasons[vec] for vec in under}
                lines.append((prefix + "*", op, why.pop() if len(why) == 1 else f"{len(under)} vectors, as the cause says"))
                done.update(under)
            else:
                lines.append((v["vector"], op, reasons[v["vector"]]))
                done.add(v["vector"])
    return sorted(lines)


def short(v):
    """The entry's reason: what the client did, in a few words (the cause header says why)."""
    d = re.sub(r"\s+", " ", v.get("detail", ""))
    m = re.search(r"client threw ([\w.$]+)\b.*?(?: via| at) (?:org\.apache\.ignite\.[\w.]*\.)?([\w$]+\.[\w$<>]+)\(", d)
    if v["verdict"] == "skip" and m:
        return f"skipped: {m.group(1).rsplit('.', 1)[-1]} in {m.group(2)}"
    return d.replace("runner skipped: ", "skipped: ")[:90]


def upstream_line(tree, ref, path, needle):
    if isinstance(path, dict):
        path = path[ref]
    with open(os.path.join(tree, path), encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if needle in line:
                return f"{path}:{n}@{ref}"
    raise SystemExit(f"deviations.py: {needle!r} not found in {path} at {ref}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ref", required=True, choices=["3.0.0", "3.1.0", "main"])
    ap.add_argument("report")
    ap.add_argument("--out", help="default runners/ignite-java/expected-failures-<ref>.txt")
    ap.add_argument("--check", action="store_true",
                    help="write nothing; exit 1 when the file differs from what this run gives (after a corpus change:"
                         " a glob may hide a new vector that fails for another cause)")
    args = ap.parse_args()
    tree = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "ignite_upstream.py"), "ignite", "--ref", args.ref],
                          check=True, capture_output=True, text=True).stdout.strip()
    with open(args.report, encoding="utf-8") as f:
        report = json.load(f)
    faults = [v for v in report["verdicts"] if v["runner"] == "ignite-java"
              and v["verdict"] in ("crash", "timeout", "protocol-error", "abandoned")]
    if faults:
        print(f"deviations.py: {len(faults)} crash/timeout/protocol-error/abandoned verdicts (e.g. {faults[0]['vector']}: "
              f"{faults[0].get('detail', '')[:200]}): these are never listed; fix the run first", file=sys.stderr)
        return 1
    groups = {i: [] for i in range(len(CAUSES))}
    owner = {}  # (vector, op) -> cause index, or None for a verdict that is not listed
    unmatched = []
    for v in report["verdicts"]:
        if v["runner"] == "ignite-java":
            owner.setdefault((v["vector"], v["op"]), None)
        if v["runner"] != "ignite-java" or v["verdict"] not in ("fail", "skip", "xfail"):
            continue
        if v["verdict"] == "xfail":
            v = dict(v, verdict=v.get("outcome", "fail"))
        hits = [i for i, c in enumerate(CAUSES) if c["match"](v)]
        if len(hits) != 1:
            unmatched.append((v, hits))
            continue
        groups[hits[0]].append(v)
        owner[(v["vector"], v["op"])] = hits[0]
    if unmatched:
        for v, hits in unmatched[:50]:
            print(f"deviations.py: {len(hits)} causes for {v['vector']} {v['op']}: {v['verdict']}: {v.get('detail', '')[:300]}",
                  file=sys.stderr)
        print(f"deviations.py: {len(unmatched)} failing verdicts without exactly one cause; nothing written", file=sys.stderr)
        return 1
    out = [f"# ignite-java at {args.ref}: every deviation of the Java client's own wire code from the corpus, by cause.",
           "# Written by runners/ignite-java/deviations.py from a run's report.json (see README.md); header format:",
           "# /work/notes/cause-format.md. Each entry: vector  op  what the client did.", ""]
    for i, c in enumerate(CAUSES):
        vs = groups[i]
        if not vs:
            continue
        rules = c["rules"].split(", ")
        ups = ", ".join(upstream_line(tree, args.ref, p, n) for p, n in c["upstream"])
        out.append(f"## cause: {c['title']} | rule: {', '.join(rules) or 'none'} | upstream: {ups} | fixed-on-main: {c['fixed']}")
        out.extend("# " + line for line in c["notes"])
        out.append(f"# {len(vs)} verdicts")
        for scope, op, why in compress(vs, owner, i):
            out.append(f"{scope}  {op}  {why}")
        out.append("")
    path = args.out or os.path.join(HERE, f"expected-failures-{args.ref}.txt")
    if args.check:
        with open(path, encoding="utf-8") as f:
            same = f.read() == "\n".join(out)
        print(f"deviations.py: {os.path.relpath(path)} {'matches' if same else 'DIFFERS from'} this run", file=sys.stderr)
        return 0 if same else 1
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(out))
    print(f"deviations.py: {sum(len(g) for g in groups.values())} entries in "
          f"{sum(1 for g in groups.values() if g)} causes -> {os.path.relpath(path)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
