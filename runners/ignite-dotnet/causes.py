#!/usr/bin/env python3
"""Groups the failing verdicts of an ignite-dotnet run (report.json) by cause and writes expected-failures-<ref>.txt.

    python3 runners/ignite-dotnet/causes.py out/official/<ref>/report.json <ref> "$(python3 tools/ignite_upstream.py ignite --ref <ref>)" runners/ignite-dotnet/expected-failures-<ref>.txt

Run it on a report made WITHOUT the expected-failures file (its failing verdicts are the input).

Every failing verdict goes to the first cause whose rule matches it; one that no rule matches stops the script (a new
deviation to look at).
Upstream lines are looked up in the tree by pattern, so each ref's file names its own lines.
"""
import json
import re
import sys
from pathlib import Path

D = "modules/platforms/dotnet/Apache.Ignite/"
BTR = D + "Internal/Proto/BinaryTuple/BinaryTupleReader.cs"
BTB = D + "Internal/Proto/BinaryTuple/BinaryTupleBuilder.cs"
MPR = D + "Internal/Proto/MsgPack/MsgPackReader.cs"
CP = D + "Internal/Compute/ComputePacker.cs"
SRS = D + "Internal/Table/Serialization/StreamerReceiverSerializer.cs"
DSR = D + "Internal/Table/DataStreamerWithReceiver.cs"
TSH = D + "Internal/Table/Serialization/TupleSerializerHandler.cs"
PAB = D + "Internal/Buffers/PooledArrayBuffer.cs"


def vid(*globs):
    rx = [re.compile("^" + re.escape(g).replace(r"\*", ".*") + "$") for g in globs]
    return lambda v: any(r.match(v["vector"]) for r in rx)


def detail(*subs):
    return lambda v: any(s in (v["detail"] or "") for s in subs)


def both(a, b):
    return lambda v: a(v) and b(v)


# (title, fixed-on-main, [(file, pattern, optional second pattern for a range)], comment lines, matcher)
CAUSES = [
    ("the corpus's two-defect vector bt.tuple.offsets.decreasing", "n/a",
     [(BTR, r"var s => throw GetInvalidLengthException\(index, 1, s.Length\)")],
     ["00 02 01 07 08 (INT8 INT8): element 0 is 2 bytes, so the INT8 getter's length check fires before the",
      "decreasing pair is seen (Java answers the same, issue 36). The corpus-fix branch gives the vector one defect."],
     vid("bt.tuple.offsets.decreasing")),
    ("no object-array reader in the client", "n/a",
     [(D + "Internal/Proto/MsgPack/MsgPackWriter.cs", r"public void WriteObjectCollection(WithCount)?AsBinaryTuple")],
     ["The .NET client only writes object arrays (Sql arguments); it has no code that reads one, so the adapter",
      "answers every object-array decode 'skipped' rather than composing a reader of its own (README)."],
     detail("has no object-array reader")),
    ("the client never reads a row's no-value set", "n/a",
     [(TSH, r"public IIgniteTuple Read\(ref MsgPackReader reader")],
     ["Rows the client receives are bare tuples; MsgPackReader has no ext reader. The adapter passes over the",
      "BITMASK with the client's MsgPackReader.Skip and reads the tuple with the client's row reader, so a NO_VALUE",
      "column reads as NULL and anything in the mask's place (nil) is skipped unchecked."],
     lambda v: v["vector"].startswith(("bt.row.", "bt.stryker.row.nil-then-bin")) and v["op"].startswith(("decode", "reject"))
     and not v["vector"].startswith("bt.stryker.row.bin-then-nil")),
    ("BinaryTupleReader never checks offsets against the input", "no",
     [(BTR, r"var flags = buffer\[0\];"), (BTR, r"return _buffer.Slice\(offset, nextOffset - offset\);")],
     ["Seek slices [offset, nextOffset) without comparing either end with the input, and the constructor reads",
      "buffer[0] unchecked: a cut tuple, an offset past the end or a cut offset table surfaces as the runtime's",
      "ArgumentOutOfRangeException / IndexOutOfRangeException, not a rejection of the client's; answered 'skipped'."],
     both(lambda v: v["verdict"] == "skip", both(detail("IndexOutOfRangeException", "ArgumentOutOfRangeException: Specified argument was out of the range"),
                                                detail("BinaryTupleReader")))),
    ("MsgPackReader indexes past the end of a cut input", "no",
     [(MPR, r"if \(_span\[_pos\] == MsgPackCode.Nil\)"), (MPR, r"var span = _span.Slice\(_pos, length\);")],
     ["TryReadNil reads _span[_pos] and GetSpan slices without a length check: an empty compute-arg or collection",
      "input, or a kind / element count with nothing after it, throws IndexOutOfRangeException /",
      "ArgumentOutOfRangeException from the runtime (issue 36: answered 'skipped', not mapped to a class)."],
     both(lambda v: v["verdict"] == "skip", both(detail("IndexOutOfRangeException", "ArgumentOutOfRangeException: Specified argument was out of the range"),
                                                detail("MsgPackReader")))),
    ("a negative collection item count reaches ArrayPool.Rent", "no",
     [(BTR, r"var items = ArrayPool<T>.Shared.Rent\(count\);")],
     ["GetObjectCollectionWithType rents an array of the count it read: -1 throws ArgumentOutOfRangeException",
      "(minimumLength) from the runtime."],
     detail("minimumLength")),
    ("the receiver-results reader checks neither element count, type id nor NULL items", "no",
     [(SRS, r"var numElements = reader.ReadInt32\(\);", r"return tuple.GetObjectCollectionWithType<T>\(\);"),
      (DSR, r"var numElements = reader.ReadInt32\(\);", r"return tuple.GetObjectCollectionWithType<T>\(\);"),
      (BTR, r"public \(T\[\] Items, int Count\) GetObjectCollectionWithType<T>")],
     ["An element count of 0 returns no results without reading the bin; -1 (issue 36: 'a collection count of -1",
      "is accepted') or one past the items is read as a tuple of that many elements; a type id the client has no",
      "reader for is not looked at when the count is 0, type 0 reads every item as null, and a NULL item reads as null."],
     vid("bt.collection.elements-0", "bt.collection.elements-m1", "bt.collection.elements-past-count", "bt.collection.type-0",
         "bt.collection.null-item-read", "bt.stryker.collection.type-0-empty", "bt.stryker.collection.type-20-empty")),
    ("the object DECIMAL reader ignores the scale element", "no",
     [(BTR, r"var scale = GetInt\(index \+ 1\);"), (BTR, r"private static BigDecimal\? ReadDecimal\(ReadOnlySpan<byte> span, int scale\)")],
     ["GetObject reads the scale element and hands it to ReadDecimal, which returns the stored pair as it is",
      "(SuppressMessage 'Schema scale is not required'): Java's 1.50, stored (15, 1), arrives as 1.5, and an",
      "inexact rescale is never noticed."],
     lambda v: v["vector"].startswith(("bt.decimal.object.", "bt.object-edge.bt.decimal.", "bt.compute-arg.native-decimal",
                                       "bt.stryker.decimal.object.")) and not v["op"].startswith(("encode", "reject-encode"))),
    ("type id 0 with a value reads as null", "no",
     [(BTR, r"ColumnType.Null => null,")],
     ["GetObject(index, ColumnType.Null) returns null without looking at the value element."],
     vid("bt.object.type-0", "bt.stryker.object.type-0-no-value")),
    ("NodaTime's ranges are narrower than the wire's DATE, TIMESTAMP and DURATION", "no",
     [(BTR, r"return new LocalDate\(year, month, day\);"), (BTR, r"\{ Length: 8 \} s => Instant.FromUnixTimeSeconds"),
      (BTR, r"\{ Length: 8 \} s => Duration.FromSeconds")],
     ["NodaTime's LocalDate holds years -9998..9999 (the wire: -16384..16383), Instant -377673580800..253402300799 s",
      "(java.time.Instant: about +-3.2e16 s) and Duration about +-1.45e12 s (the wire: any int64): valid values are",
      "refused on read and cannot be handed to the writer (NodaTime's ArgumentOutOfRangeException, invalid.tuple-value)."],
     detail("NodaTime: ArgumentOutOfRangeException")),
    ("the builder writes a negative non-whole DURATION with negative nanos", "no",
     [(BTB, r"private void PutDuration\(Duration value\)", r"PutInt\(nanos\);\n\s*\}\n\s*\}")],
     ["PutDuration writes days*86400 + secondOfDay and SubsecondNanoseconds, which is negative for a negative",
      "duration: -1 ns is seconds 0, nanos -1, where the corpus wants seconds -1, nanos 999999999. Java's",
      "Duration.ofSeconds(s, n) normalises either; the corpus-fix branch settles which bytes pass (issue 36)."],
     lambda v: v["op"] == "encode" and (v["vector"].startswith(("bt.duration.", "bt.object.duration", "bt.collection.duration"))
                                        or v["vector"] == "bt.tuple.mixed.every-type")),
    ("out-of-range TIMESTAMP and DURATION nanos are normalised on read", "no",
     [(BTR, r"\.PlusNanoseconds\(BinaryPrimitives.ReadInt32LittleEndian\(s\[8..\]\)\),"),
      (BTR, r"\.Plus\(Duration.FromNanoseconds\(BinaryPrimitives.ReadInt32LittleEndian\(s\[8..\]\)\)\),")],
     ["The reader adds the nanos element to the seconds (PlusNanoseconds, Plus(FromNanoseconds)): nanos -1 or 1e9",
      "are accepted and normalised instead of refused."],
     vid("bt.duration.bad-nano-*", "bt.timestamp.bad-nano-*", "bt.profile.python.timestamp-*")),
    ("a leading 80 is stripped only from the 1-byte STRING element", "no",
     [(BTR, r"\{ Length: 1 \} s when s\[0\] == BinaryTupleCommon.VarlenEmptyByte => string.Empty,")],
     ["GetStringNullable treats only the exact 1-byte 80 as the empty string and decodes 80 61 62 as U+FFFD 'ab'."],
     lambda v: "prefix-80" in v["op"]),
    ("ill-formed UTF-8 is decoded with replacement", "no",
     [(BTR, r"var s => ProtoCommon.StringEncoding.GetString\(s\)")],
     ["ProtoCommon.StringEncoding is a UTF8Encoding without throwOnInvalidBytes: bad bytes become U+FFFD."],
     vid("bt.string.invalid-utf8.*")),
    ("reserved header bits are ignored", "no",
     [(BTR, r"_entrySize = 1 << \(flags & BinaryTupleCommon.VarsizeMask\);")],
     ["Only bits 0-1 of the header are read (as Java's parser does)."],
     vid("bt.tuple.header.reserved-bit*")),
    ("a BOOLEAN byte other than 00 and 01 reads as true", "no",
     [(BTR, r"\{ \} b => BinaryTupleCommon.ByteToBool\(b\)")],
     ["ByteToBool is b != 0."],
     vid("bt.boolean.byte*")),
    ("a 2-byte DECIMAL element reads as zero", "no",
     [(BTR, r"var unscaled = new BigInteger\(span\[2..\], isBigEndian: true\);")],
     ["ReadDecimal has no length check: a scale and no unscaled bytes is BigInteger 0."],
     vid("bt.decimal.length2", "bt.length.decimal.len2", "bt.leniency.decimal.object-value-len2")),
    ("every compute kind but 1 and 2 is read as NATIVE", "no",
     [(CP, r"_ => \(T\)r.ReadObjectFromBinaryTuple\(\)!")],
     ["UnpackArgOrResult (3.0.0: UnpackResult) switches on TUPLE and MARSHALLED and reads any other kind as NATIVE."],
     vid("bt.compute-arg.kind-*")),
    ("nil after the compute kind reads as null", "no",
     [(MPR, r"public object\? ReadObjectFromBinaryTuple\(\)"), (CP, r"if \(r.TryReadNil\(\)\)")],
     ["Kind 0 then nil: ReadObjectFromBinaryTuple reads nil as null; kind 2 then nil: Unmarshal's TryReadNil."],
     vid("bt.compute-arg.native-nil", "bt.compute-arg.marshalled-nil")),
    ("what follows the value is never looked at", "n/a",
     [(MPR, r"public bool End =>")],
     ["The readers take one value of a larger message and never ask MsgPackReader.End (nor know a tuple's length):",
      "a further value after an object, a compute argument, a collection or a row is accepted."],
     vid("bt.compute-arg.extra-value", "bt.collection.extra-value", "bt.stryker.*.nil-then-nil", "bt.stryker.object.bin-nil",
         "bt.stryker.object.nil-nil", "bt.stryker.row.bin-then-nil", "bt.tuple.trailing-bytes")),
    ("a marshaller writing through IBufferWriter.Write fails: GetSpan(0) returns an empty span", "no",
     [(PAB, r"return _buffer.AsSpan\(_index, sizeHint\);")],
     ["PooledArrayBuffer.GetSpan(sizeHint) returns exactly sizeHint bytes, so GetSpan() is empty and the runtime's",
      "BuffersExtensions.Write throws ArgumentOutOfRangeException('writer') for the adapter's pass-through",
      "marshaller (writer.Write(bytes), the usual IBufferWriter idiom). 3.0.0 returned the rest of the buffer."],
     detail("(Parameter 'writer')")),
    ("an empty collection indexes collection[0]", "no",
     [(BTB, r"var firstValue = collection\[0\];")],
     ["AppendObjectCollectionWithType reads the first item for its type; the streamer never sends an empty batch."],
     both(vid("bt.collection.empty"), lambda v: v["op"] == "encode")),
    ("mixed or NULL collection items fail with InvalidCast or NullReference", "no",
     [(BTB, r"var firstValue = collection\[0\];")],
     ["The item type is taken from the first item and every item is unboxed to it: no refusal of the client's own."],
     vid("bt.collection.mixed-types", "bt.collection.null-item")),
    ("a row with no set column is refused", "no",
     [(TSH, r"Matching fields not found")],
     ["TupleSerializerHandler refuses a tuple none of whose columns it can map (ArgumentException, not a wire rule)."],
     detail("Matching fields not found")),
    ("the value does not fit the .NET type the client's API takes", "n/a",
     [(D + "BigDecimal.cs", r"public BigDecimal\(BigInteger unscaledValue, short scale\)")],
     ["An INT8..INT64 outside sbyte..long, a DECIMAL scale outside short (Apache.Ignite.BigDecimal), a PERIOD field",
      "outside int, TIMESTAMP/DURATION nanos outside 0..999999999 (NodaTime takes no (seconds, nanos) pair): the",
      "adapter cannot hand the value to the client; answered 'skipped'."],
     detail("does not fit", "is not an int32", "NodaTime takes no (seconds, nanos) pair")),
]


def line_of(text, pattern):
    m = re.search(pattern, text)
    if not m:
        return None
    return text.count("\n", 0, m.start()) + 1


def upstream(tree, ref, specs):
    out = []
    for spec in specs:
        path = Path(tree) / spec[0]
        if not path.is_file():
            continue
        text = path.read_text()
        a = line_of(text, spec[1])
        if a is None:
            continue
        place = f"{spec[0]}:{a}"
        if len(spec) > 2:
            start = sum(len(l) + 1 for l in text.split("\n")[:a - 1])
            m = re.compile(spec[2]).search(text, start)
            if m:
                place += f"-{text.count(chr(10), 0, m.end() - 1) + 1}"
        out.append(f"{place}@{ref}")
    return out


def main():
    report, ref, tree, out = sys.argv[1:5]
    r = json.load(open(report))
    failing = [v for v in r["verdicts"] if v["runner"] == "ignite-dotnet" and v["verdict"] in ("fail", "skip")]
    groups = {c[0]: [] for c in CAUSES}
    for v in failing:
        hits = [c for c in CAUSES if c[4](v)]
        if not hits:
            sys.exit(f"no cause for {v['vector']} {v['op']} {v['verdict']}: {v['detail']}")
        groups[hits[0][0]].append(v)
    lines = [f"# ignite-dotnet at {ref}: every deviation of the official .NET client from the corpus, grouped by cause",
             "# (header format: /work/notes/cause-format.md; README.md says what the adapter calls). Verdicts a cause",
             "# lists are its evidence: the harness re-checks each on every run (xfail; a pass would be an xpass).", ""]
    total = 0
    for title, fixed, specs, comments, _ in CAUSES:
        vs = groups[title]
        if not vs:
            continue
        rules = sorted({rule for v in vs for rule in (v.get("rules") or [])}) or ["none"]
        ups = upstream(tree, ref, specs)
        if not ups:
            sys.exit(f"no upstream line found for cause {title!r} at {ref}")
        lines.append(f"## cause: {title} | rule: {', '.join(rules)} | upstream: {', '.join(ups)} | fixed-on-main: {fixed}")
        lines += ["# " + c for c in comments]
        for v in sorted(vs, key=lambda v: (v["vector"], v["op"])):
            why = "skipped" if v["verdict"] == "skip" else "fails"
            lines.append(f"{v['vector']}  {v['op']}  {why}: {title}")
        lines.append("")
        total += len(vs)
    Path(out).write_text("\n".join(lines))
    print(f"{out}: {total} entries in {sum(1 for t in groups if groups[t])} causes", file=sys.stderr)


if __name__ == "__main__":
    main()
