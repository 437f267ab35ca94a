using System;
using System.Buffers;
using System.Buffers.Binary;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Numerics;
using System.Text.Json;
using MessagePack;

namespace IgniteRunner;

/// <summary>
/// The frame layer (FRAMES.md, issue 29): one frame = [IGNI magic for the handshakes] + 4-byte big-endian signed
/// length + that many bytes of MessagePack values laid out by the message kind. Every value goes through
/// <see cref="Codec"/>: a frame's bytes are decoded to a list of typed values which <see cref="FieldReader"/> walks,
/// and <see cref="FieldWriter"/> takes the request's typed values field by field in wire order and has the codec
/// write each. Each kind is one layout function (section 3's table as code) that both cursors walk, so reading and
/// writing cannot drift apart. Nothing is allocated by a declared length or count. Encode checks follow
/// generator/frames.py (the corpus's judge of encode-reject vectors): feature names, then the fields the layout
/// calls for, then each field in wire order.
/// </summary>
sealed class Frames(Codec codec, JsonElement registry)
{
    public const string Format = "frame";
    /// <summary>Frames are always read and written in era 3.0 (UUIDs: ext 3, little-endian halves).</summary>
    const string Era = "3.0";

    /// <summary>The feature names a connection can negotiate (registry frames.features[].name).</summary>
    readonly HashSet<string> featureNames = registry.TryGetProperty("frames", out JsonElement frames)
        ? [.. frames.GetProperty("features").EnumerateArray().Select(f => f.GetProperty("name").GetString()!)]
        : [];

    /// <summary>"IGNI": the handshake messages start with it, both ways.</summary>
    static readonly byte[] Magic = "IGNI"u8.ToArray();

    // Response flags (ResponseFlags.java); other bits are ignored.
    const int PartitionAssignment = 1;
    const int Notification = 2;
    const int Error = 4;
    const int ServerOp = 8;
    /// <summary>SERVER_OP_RESPONSE (op 73) flags: bit 4 = the client answers with an error.</summary>
    const int ServerOpResponseError = 4;

    // The features sql-execute-request reads (registry frames.features[].name).
    const string SqlDirectTxMapping = "SQL_DIRECT_TX_MAPPING";
    const string SqlMultistatementSupport = "SQL_MULTISTATEMENT_SUPPORT";
    const string SqlPartitionAwareness = "SQL_PARTITION_AWARENESS";
    // The features that bring the direct-mapping forms of tx (spec 11.6), and the tx values that start them
    // (registry frames.tx_ids FIRST_DIRECT and DIRECT, checked against the registry below).
    const string TxPiggyback = "TX_PIGGYBACK";
    const string TxDirectMapping = "TX_DIRECT_MAPPING";
    const int TxFirstDirect = -1;
    const int TxDirect = 0;

    readonly bool txIdsAreTheRegistrys = CheckTxIds(registry);

    static bool CheckTxIds(JsonElement registry)
    {
        var ids = registry.GetProperty("frames").GetProperty("tx_ids").EnumerateArray()
            .ToDictionary(t => t.GetProperty("name").GetString()!, t => t.GetProperty("id").GetInt64());
        if (ids.GetValueOrDefault("FIRST_DIRECT", 1) != TxFirstDirect || ids.GetValueOrDefault("DIRECT", 1) != TxDirect)
        {
            throw new InvalidOperationException("schema/registry.json frames.tx_ids differ from this runner's");
        }
        return true;
    }

    /// <summary>FR-INT-RANGE: an "int" field is what Java reads with unpackInt, a "long" field with unpackLong (both
    /// typed ints); a "count" is any typed int (bounded by the values present).</summary>
    static string WireType(string type) => type is "long" or "count" ? "int" : type;

    static bool InRange(string type, BigInteger n) => type switch
    {
        "int" => n >= int.MinValue && n <= int.MaxValue,
        "long" => n >= long.MinValue && n <= long.MaxValue,
        _ => true,
    };

    /// <summary>Highest feature bit index an encoder writes: the bin stays within a .NET array.</summary>
    static readonly long MaxFeatureBit = 8L * (Array.MaxLength - 16) - 1;

    /// <summary>
    /// What a layout does with a field, one method per field type; <see cref="FieldReader"/> takes each from the
    /// decoded values, <see cref="FieldWriter"/> from the request's fields. The fields the layout depends on come
    /// back as values.
    /// </summary>
    interface ICursor
    {
        void Value(string field, string type, bool nullable = false);
        void Int(string field);
        void Long(string field);
        /// <summary>The tx field (long?): with a direct-mapping feature its value decides the fields after it; null
        /// when nil.</summary>
        BigInteger? Tx(string field, IReadOnlySet<string> features);
        /// <summary>An int the fields after it depend on (the flags).</summary>
        BigInteger Flags(string field);
        /// <summary>An int? that decides whether a field follows: true when nil or the int 0 (spec 11.7: no tuple then;
        /// a value of another type is false, so the field still follows and the type is refused in turn).</summary>
        bool NilOrZero(string field);
        void Features(string field);
        void Extensions(string field);
        void UuidList(string field);
        void Error(string field);
        /// <summary>nil (true: the success fields follow) or the error object (false: the message ends).</summary>
        bool NilOrError(string field);
        void Payload(string field);
    }

    /// <summary>A message kind: its fields in wire order, walked the same way to read and to write.</summary>
    delegate void Layout(ICursor c, IReadOnlySet<string> features);

    sealed record Kind(bool HasMagic, Layout Layout);

    static readonly Dictionary<string, Kind> Kinds = new()
    {
        ["handshake-request"] = new(true, HandshakeRequest),
        ["handshake-response"] = new(true, HandshakeResponse),
        ["request"] = new(false, Request),
        ["response"] = new(false, Response),
        ["server-op-response"] = new(false, ServerOpResponse),
        ["tuple-request"] = new(false, TupleRequest),
        ["tuple-upsert-response"] = new(false, TupleUpsertResponse),
        ["tuple-get-response"] = new(false, TupleGetResponse),
        ["sql-execute-request"] = new(false, SqlExecuteRequest),
        ["tx-piggyback-response"] = new(false, TxPiggybackResponse),
        ["tx-direct-response"] = new(false, TxDirectResponse),
    };

    static Kind KindOf(string kind) =>
        Kinds.TryGetValue(kind, out Kind? k) ? k : throw new NotImplementedException($"frame kind '{kind}' not implemented");

    // ---------------------------------------------------------------- decode

    /// <summary>
    /// The frame's fields as a JSON object written to <paramref name="output"/>, in FRAMES.md 4's step order. On an
    /// error the output holds a partial object: the caller discards it.
    /// </summary>
    public void Decode(string kind, ReadOnlyMemory<byte> frame, string era, IReadOnlySet<string> features, Utf8JsonWriter output)
    {
        Kind k = KindOf(kind);
        ReadOnlySpan<byte> bytes = frame.Span;
        int at = 0;
        if (k.HasMagic)
        {
            WireError.Check(bytes.Length >= Magic.Length, "malformed.truncated", $"{bytes.Length} bytes, the magic needs {Magic.Length}");
            WireError.Check(bytes[..Magic.Length].SequenceEqual(Magic), "frame.magic",
                $"{kind} starts with {Fields.Hex(bytes[..Magic.Length])}, not the magic 49474e49 (IGNI)");
            at = Magic.Length;
        }
        WireError.Check(bytes.Length - at >= 4, "malformed.truncated", $"{bytes.Length - at} bytes where the 4-byte length starts");
        int length = BinaryPrimitives.ReadInt32BigEndian(bytes[at..]);
        WireError.Check(length >= 0, "frame.length", $"frame length {length} is negative (top bit set: {(uint)length:x8})");
        at += 4;
        WireError.Check(bytes.Length - at >= length, "malformed.truncated", $"frame declares {length} bytes, {bytes.Length - at} follow");
        using (JsonDocument values = codec.DecodeDocument(frame.Slice(at, length).ToArray(), era))
        {
            output.WriteStartObject();
            var reader = new FieldReader(values.RootElement, output);
            k.Layout(reader, features);
            reader.End(kind);
            output.WriteEndObject();
        }
        at += length;
        WireError.Check(at == bytes.Length, "frame.trailing", $"{bytes.Length - at} bytes after the {length}-byte frame");
    }

    // ---------------------------------------------------------------- encode

    readonly ArrayBufferWriter<byte> packed = new(1 << 12);   // the message's MessagePack, reused

    /// <summary>
    /// The frame of <paramref name="fields"/>, checked in the generator's order: feature names, the fields the
    /// flags / error / features call for (frame.fields; a deciding field of the wrong type is frame.field-type at
    /// once), then each field in wire order: its type (frame.field-type) and its value, encoded by the codec. The
    /// length (and the magic) go in front.
    /// </summary>
    public byte[] Encode(string kind, JsonElement fields, IReadOnlySet<string> features)
    {
        Kind k = KindOf(kind);
        WireError.Check(fields.ValueKind == JsonValueKind.Object, "frame.fields", $"fields of {kind} is not an object");
        string[] unknown = [.. features.Where(name => !featureNames.Contains(name)).Order(StringComparer.Ordinal)];
        WireError.Check(unknown.Length == 0, "frame.fields", $"unknown feature names {string.Join(", ", unknown)}");
        var plan = new FieldWriter(codec, fields, null);
        k.Layout(plan, features);
        plan.CheckNames(kind);
        packed.ResetWrittenCount();
        k.Layout(new FieldWriter(codec, fields, packed), features);
        ReadOnlySpan<byte> payload = packed.WrittenSpan;
        int head = k.HasMagic ? Magic.Length : 0;
        byte[] frame = new byte[head + 4 + payload.Length];
        Magic.AsSpan(0, head).CopyTo(frame);
        BinaryPrimitives.WriteInt32BigEndian(frame.AsSpan(head), payload.Length);
        payload.CopyTo(frame.AsSpan(head + 4));
        return frame;
    }

    // ---------------------------------------------------------------- layouts (FRAMES.md section 3)

    static void HandshakeRequest(ICursor c, IReadOnlySet<string> features)
    {
        c.Int("version_major");
        c.Int("version_minor");
        c.Int("version_patch");
        c.Int("client_code");
        c.Features("features");
        c.Extensions("extensions");
    }

    static void HandshakeResponse(ICursor c, IReadOnlySet<string> features)
    {
        c.Int("version_major");
        c.Int("version_minor");
        c.Int("version_patch");
        if (!c.NilOrError("error"))
        {
            return;   // a failed handshake ends with its error
        }
        c.Long("idle_timeout");
        c.Value("node_id", "uuid");
        c.Value("node_name", "str");
        c.UuidList("cluster_ids");
        c.Value("cluster_name", "str");
        c.Long("observable_timestamp");
        c.Int("product_major");
        c.Int("product_minor");
        c.Int("product_maintenance");
        c.Value("product_patch", "int", nullable: true);
        c.Value("product_pre_release", "str", nullable: true);
        c.Features("features");
        c.Extensions("extensions");
    }

    static void Request(ICursor c, IReadOnlySet<string> features)
    {
        c.Int("op");
        c.Long("request_id");
        c.Payload("payload");
    }

    /// <summary>The response header; true when the message goes on (no error).</summary>
    static bool ResponseHeader(ICursor c, out BigInteger flags)
    {
        c.Long("request_id");
        flags = c.Flags("flags");
        if ((flags & PartitionAssignment) != 0)
        {
            c.Long("partition_assignment_timestamp");
        }
        c.Long("observable_timestamp");
        if ((flags & Error) != 0)
        {
            c.Error("error");
            return false;
        }
        return true;
    }

    static void Response(ICursor c, IReadOnlySet<string> features)
    {
        if (ResponseHeader(c, out BigInteger flags))
        {
            if ((flags & ServerOp) != 0)
            {
                c.Int("server_op");
            }
            c.Payload("payload");
        }
    }

    static void ServerOpResponse(ICursor c, IReadOnlySet<string> features)
    {
        c.Int("op");
        c.Long("request_id");
        if ((c.Flags("flags") & ServerOpResponseError) != 0)
        {
            c.Error("error");
        }
        else
        {
            c.Payload("payload");
        }
    }

    static void TupleRequest(ICursor c, IReadOnlySet<string> features)
    {
        c.Int("op");
        c.Long("request_id");
        c.Int("table_id");
        Tx(c, features);
        c.Int("schema_version");
        c.Value("no_value_set", "bitmask");
        c.Value("tuple", "bin");
    }

    static void TupleUpsertResponse(ICursor c, IReadOnlySet<string> features)
    {
        if (ResponseHeader(c, out _))
        {
            c.Int("schema_version");
        }
    }

    static void TupleGetResponse(ICursor c, IReadOnlySet<string> features)
    {
        if (ResponseHeader(c, out _))
        {
            c.Int("schema_version");
            c.Value("tuple", "bin", nullable: true);
        }
    }

    /// <summary>tx, then the fields its direct-mapping form brings (spec 11.6).</summary>
    static void Tx(ICursor c, IReadOnlySet<string> features)
    {
        BigInteger? tx = c.Tx("tx", features);
        if (tx == TxFirstDirect && features.Contains(TxPiggyback))
        {
            c.Long("tx_observable_timestamp");
            c.Value("tx_read_only", "bool");
            c.Long("tx_timeout");
        }
        else if (tx == TxDirect && features.Contains(TxDirectMapping))
        {
            c.Long("tx_enlistment_token");
            c.Value("tx_id", "uuid");
            c.Int("tx_commit_table_id");
            c.Int("tx_commit_partition");
            c.Value("tx_coordinator_id", "uuid");
            c.Long("tx_timeout");
        }
    }

    /// <summary>The response to a request whose tx was -1: writeTxMeta's fields, then the op's payload.</summary>
    static void TxPiggybackResponse(ICursor c, IReadOnlySet<string> features)
    {
        if (ResponseHeader(c, out _))
        {
            c.Long("tx_resource_id");
            c.Value("tx_id", "uuid");
            c.Value("tx_coordinator_id", "uuid");
            c.Long("tx_timeout");
            c.Payload("payload");
        }
    }

    /// <summary>The response to a request whose tx was 0: writeTxMeta's fields, then the op's payload.</summary>
    static void TxDirectResponse(ICursor c, IReadOnlySet<string> features)
    {
        if (ResponseHeader(c, out _))
        {
            c.Value("tx_primary_node", "str");
            c.Long("tx_enlistment_token");
            c.Value("tx_noop", "bool");
            c.Payload("payload");
        }
    }

    static void SqlExecuteRequest(ICursor c, IReadOnlySet<string> features)
    {
        c.Int("op");
        c.Long("request_id");
        if (features.Contains(SqlDirectTxMapping))
        {
            c.Value("direct_tx_mapping", "bool");
        }
        Tx(c, features);
        c.Value("schema", "str", nullable: true);
        c.Value("page_size", "int", nullable: true);
        c.Value("query_timeout", "long", nullable: true);
        c.Value("idle_timeout", "long", nullable: true);
        c.Value("time_zone", "str", nullable: true);
        c.Int("property_count");
        c.Value("properties", "bin");
        if (features.Contains(SqlMultistatementSupport))
        {
            c.Int("query_modifiers");
        }
        c.Value("statement", "str");
        if (!c.NilOrZero("arguments_count"))
        {
            c.Value("arguments_tuple", "bin");
        }
        c.Long("observable_timestamp");
        if (features.Contains(SqlPartitionAwareness))
        {
            c.Value("partition_awareness", "bool");
        }
    }

    // ---------------------------------------------------------------- shared pieces

    /// <summary>A typed value's "type" (null when it is not a typed value at all).</summary>
    static string? TypeOf(JsonElement value) =>
        value.ValueKind == JsonValueKind.Object && value.TryGetProperty("type", out JsonElement t) && t.ValueKind == JsonValueKind.String
            ? t.GetString() : null;

    static bool IsNil(JsonElement value) => TypeOf(value) == "nil";

    /// <summary>nil, or a typed int whose value is 0.</summary>
    static bool IsNilOrZero(JsonElement value) =>
        IsNil(value) || TypeOf(value) == "int" && value.TryGetProperty("value", out JsonElement v)
            && v.ValueKind == JsonValueKind.String && v.GetString() == "0";

    static BigInteger IntOf(JsonElement typedInt) =>
        BigInteger.Parse(typedInt.GetProperty("value").GetString()!, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture);

    static WireError FieldType(string field, string expected, JsonElement got) =>
        new("frame.field-type", $"{field}: expected {expected}, got {Describe(got)}");

    static string Describe(JsonElement value) => TypeOf(value) is string type ? $"a typed {type}" : value.ValueKind.ToString();

    /// <summary>Feature bit i = byte i/8, bit i%8 (least significant first), as java.util.BitSet.toByteArray.</summary>
    static IEnumerable<long> FeatureBits(ReadOnlyMemory<byte> bin)
    {
        for (int k = 0; k < bin.Length; k++)
        {
            for (int j = 0; j < 8; j++)
            {
                if ((bin.Span[k] >> j & 1) != 0)
                {
                    yield return 8L * k + j;
                }
            }
        }
    }

    /// <summary>The minimal bin of a bit set: the highest bit makes the last byte; the empty set is an empty bin.</summary>
    static byte[] FeatureBin(IReadOnlyCollection<long> bits)
    {
        byte[] bin = new byte[bits.Count == 0 ? 0 : bits.Max() / 8 + 1];
        foreach (long bit in bits)
        {
            bin[bit / 8] |= (byte)(1 << (int)(bit % 8));
        }
        return bin;
    }

    /// <summary>The decoded value list, walked field by field; each field is written to the answer as it is read.</summary>
    sealed class FieldReader(JsonElement values, Utf8JsonWriter output) : ICursor
    {
        JsonElement.ArrayEnumerator next = values.EnumerateArray();

        JsonElement Next(string field) =>
            next.MoveNext() ? next.Current : throw WireError.Truncated($"the frame's values end before {field}");

        /// <summary>The next value, of <paramref name="type"/> (or nil when nullable), else frame.field-type.</summary>
        JsonElement Take(string field, string type, bool nullable = false)
        {
            JsonElement value = Next(field);
            string? got = TypeOf(value);
            if (!(got == WireType(type) || nullable && got == "nil"))
            {
                throw FieldType(field, nullable ? type + "?" : type, value);
            }
            WireError.Check(got != "int" || InRange(type, IntOf(value)), "frame.field-type",
                $"{field}: {(got == "int" ? IntOf(value) : 0)} is outside the field's {type} range");
            return value;
        }

        /// <summary>The next value, checked, written to the answer as the field.</summary>
        JsonElement Copy(string field, string type, bool nullable = false)
        {
            JsonElement value = Take(field, type, nullable);
            output.WritePropertyName(field);
            value.WriteTo(output);
            return value;
        }

        public void Value(string field, string type, bool nullable = false) => Copy(field, type, nullable);

        public void Int(string field) => Copy(field, "int");

        public void Long(string field) => Copy(field, "long");

        public BigInteger? Tx(string field, IReadOnlySet<string> features)
        {
            JsonElement value = Copy(field, "long", nullable: true);
            return IsNil(value) ? null : IntOf(value);
        }

        public BigInteger Flags(string field) => IntOf(Copy(field, "int"));

        public bool NilOrZero(string field) => IsNilOrZero(Copy(field, "int", nullable: true));

        /// <summary>A count: an int >= 0. A count larger than the values left runs the list out (malformed.truncated).</summary>
        BigInteger Count(string field)
        {
            JsonElement value = Take(field, "count");
            BigInteger n = IntOf(value);
            return n >= 0 ? n : throw new WireError("frame.field-type", $"{field}: negative count {n}");
        }

        public void Features(string field)
        {
            ReadOnlyMemory<byte> bin = Convert.FromHexString(Take(field, "bin").GetProperty("hex").GetString()!);
            output.WriteStartArray(field);
            foreach (long bit in FeatureBits(bin))
            {
                output.WriteNumberValue(bit);
            }
            output.WriteEndArray();
        }

        public void Extensions(string field)
        {
            output.WritePropertyName(field);
            Pairs(field);
        }

        /// <summary>Count + pairs of key str and ONE value of any type (unknown keys are skipped by value).</summary>
        void Pairs(string field)
        {
            BigInteger count = Count(field);
            output.WriteStartArray();
            for (BigInteger i = 0; i < count; i++)
            {
                output.WriteStartArray();
                output.WriteStringValue(Take($"{field} key {i}", "str").GetProperty("value").GetString());
                Next($"{field} value {i}").WriteTo(output);
                output.WriteEndArray();
            }
            output.WriteEndArray();
        }

        public void UuidList(string field)
        {
            BigInteger count = Count(field);
            output.WriteStartArray(field);
            for (BigInteger i = 0; i < count; i++)
            {
                Take($"{field} {i}", "uuid").WriteTo(output);
            }
            output.WriteEndArray();
        }

        /// <summary>The error object: six consecutive values (not a container).</summary>
        public void Error(string field)
        {
            output.WriteStartObject(field);
            ErrorMembers(field);
            output.WriteEndObject();
        }

        void ErrorMembers(string field)
        {
            Copy("trace_id", "uuid");
            Copy("code", "int");
            Value("class_name", "str");
            Value("message", "str", nullable: true);
            Value("stack_trace", "str", nullable: true);
            output.WritePropertyName("extensions");
            if (IsNil(Peek($"{field} extensions")))
            {
                Next(field).WriteTo(output);
            }
            else
            {
                Pairs($"{field} extensions");
            }
        }

        JsonElement Peek(string field)
        {
            JsonElement.ArrayEnumerator ahead = next;   // a struct: a copy looks ahead without moving this one
            return ahead.MoveNext() ? ahead.Current : throw WireError.Truncated($"the frame's values end before {field}");
        }

        /// <summary>nil (written as typed nil; returns true) or the error object (returns false).</summary>
        public bool NilOrError(string field)
        {
            if (IsNil(Peek(field)))
            {
                Copy(field, "nil");
                return true;
            }
            Error(field);
            return false;
        }

        public void Payload(string field)
        {
            output.WriteStartArray(field);
            while (next.MoveNext())
            {
                next.Current.WriteTo(output);
            }
            output.WriteEndArray();
        }

        public void End(string kind)
        {
            int left = 0;
            while (next.MoveNext())
            {
                left++;
            }
            WireError.Check(left == 0, "frame.trailing", $"{left} values after the last field of {kind}");
        }
    }

    /// <summary>
    /// The mirror image of <see cref="FieldReader"/>, run twice over the request's fields object. First as a plan
    /// (<c>output</c> null): it only notes which fields the layout calls for, checking at once the fields the rest
    /// depends on (flags, arguments_count: missing is frame.fields, wrong type frame.field-type), so that
    /// <see cref="CheckNames"/> can refuse a missing or extra field. Then for real: each field in wire order, its
    /// type checked and its values encoded by the codec, so a wrong type or a value the codec refuses is reported
    /// in wire order.
    /// </summary>
    sealed class FieldWriter(Codec codec, JsonElement fields, IBufferWriter<byte>? output) : ICursor
    {
        readonly List<string> wanted = [];

        bool Planning => output is null;

        /// <summary>The field's value; null while planning (nothing is read then) or when it is missing.</summary>
        JsonElement? Field(string field)
        {
            if (Planning)
            {
                wanted.Add(field);
                return null;
            }
            return fields.GetProperty(field);   // CheckNames has seen every wanted field present
        }

        /// <summary>A field the layout depends on: missing is frame.fields, a type other than int (or nil) frame.field-type.</summary>
        JsonElement Deciding(string field, bool nullable)
        {
            JsonElement value = Required(field);
            string? got = TypeOf(value);
            WireError.Check(got == "int" || nullable && got == "nil", "frame.field-type", $"{field}: expected int{(nullable ? "?" : "")}, got {Describe(value)}");
            return value;
        }

        /// <summary>A field other fields depend on: missing is frame.fields at once.</summary>
        JsonElement Required(string field)
        {
            if (Planning)
            {
                wanted.Add(field);
            }
            WireError.Check(fields.TryGetProperty(field, out JsonElement value), "frame.fields", $"field {field} missing (other fields depend on it)");
            return value;
        }

        public void CheckNames(string kind)
        {
            string[] missing = [.. wanted.Where(name => !fields.TryGetProperty(name, out _))];
            string[] extra = [.. fields.EnumerateObject().Select(f => f.Name).Where(name => !wanted.Contains(name)).Order(StringComparer.Ordinal)];
            WireError.Check(missing.Length == 0, "frame.fields", $"{kind}: missing {string.Join(", ", missing)}");
            WireError.Check(extra.Length == 0, "frame.fields",
                $"{kind}: not in this message (unknown, or ruled out by the flags, error or features): {string.Join(", ", extra)}");
        }

        /// <summary>One value through the codec.</summary>
        void Put(JsonElement value)
        {
            var writer = new MessagePackWriter(output!);
            codec.Write(ref writer, value);
            writer.Flush();
        }

        void PutCount(int n)
        {
            var writer = new MessagePackWriter(output!);
            writer.Write(n);   // the codec's int writer: the shortest form
            writer.Flush();
        }

        /// <summary>A value of field type <paramref name="type"/> (int, bool, str, bin, uuid, bitmask; era 3.0), or nil when nullable.</summary>
        void Scalar(string field, JsonElement value, string type, bool nullable = false)
        {
            string? got = TypeOf(value);
            if (!(nullable && got == "nil"))
            {
                WireError.Check(got == WireType(type) && (type is not ("uuid" or "bitmask") || EraOf(value) == Era), "frame.field-type",
                    $"{field}: expected {type}{(nullable ? "?" : "")}, got {Describe(value)}");
                if (got == "int")
                {
                    BigInteger n = IntOf(value);
                    WireError.Check(InRange(type, n), "unrepresentable", $"{field}: {n} outside the field's {type} range");
                }
            }
            Put(value);
        }

        static string? EraOf(JsonElement value) =>
            value.TryGetProperty("era", out JsonElement era) && era.ValueKind == JsonValueKind.String ? era.GetString() : null;

        public void Value(string field, string type, bool nullable = false)
        {
            if (Field(field) is JsonElement value)
            {
                Scalar(field, value, type, nullable);
            }
        }

        public void Int(string field) => Value(field, "int");

        public void Long(string field) => Value(field, "long");

        /// <summary>tx: with a direct-mapping feature its value decides the layout, so it is checked even while
        /// planning (missing: frame.fields, neither int nor nil: frame.field-type, at once).</summary>
        public BigInteger? Tx(string field, IReadOnlySet<string> features)
        {
            if (!features.Contains(TxPiggyback) && !features.Contains(TxDirectMapping))
            {
                Value(field, "long", nullable: true);
                return null;
            }
            JsonElement value = Deciding(field, nullable: true);
            if (!Planning)
            {
                Scalar(field, value, "long", nullable: true);
            }
            return IsNil(value) ? null : IntOf(value);
        }

        /// <summary>The flags: checked even while planning, since the layout depends on them.</summary>
        public BigInteger Flags(string field)
        {
            JsonElement value = Deciding(field, nullable: false);
            if (!Planning)
            {
                Scalar(field, value, "int");
            }
            return IntOf(value);
        }

        /// <summary>A nullable int whose nil-ness alone decides whether a field follows (true when nil): its type is
        /// checked with the other fields, after the names.</summary>
        public bool NilOrZero(string field)
        {
            JsonElement value = Required(field);
            if (!Planning)
            {
                Scalar(field, value, "int", nullable: true);
            }
            return IsNilOrZero(value);
        }

        public void Features(string field)
        {
            if (Field(field) is not JsonElement value)
            {
                return;
            }
            var bits = new List<long>();
            bool ok = value.ValueKind == JsonValueKind.Array;
            for (JsonElement.ArrayEnumerator each = ok ? value.EnumerateArray() : default; ok && each.MoveNext();)
            {
                JsonElement bit = each.Current;
                long index = bit.ValueKind == JsonValueKind.Number && bit.TryGetInt64(out long n) ? n : -1;
                ok = index >= 0 && (bits.Count == 0 || index > bits[^1]);
                bits.Add(index);
            }
            WireError.Check(ok, "frame.field-type", $"{field}: expected ascending feature bit indices, got {value.GetRawText()}");
            WireError.Check(bits.Count == 0 || bits[^1] <= MaxFeatureBit, "unrepresentable", $"{field}: bit {bits.LastOrDefault()} beyond {MaxFeatureBit}");
            var writer = new MessagePackWriter(output!);
            writer.Write(FeatureBin(bits));   // the codec's bin writer: c4/c5/c6
            writer.Flush();
        }

        public void Extensions(string field)
        {
            if (Field(field) is JsonElement pairs)
            {
                Pairs(field, pairs);
            }
        }

        /// <summary>Count + pairs: key str, then the value as given (any typed value).</summary>
        void Pairs(string field, JsonElement pairs)
        {
            WireError.Check(pairs.ValueKind == JsonValueKind.Array && pairs.EnumerateArray().All(pair =>
                    pair.ValueKind == JsonValueKind.Array && pair.GetArrayLength() == 2 && pair[0].ValueKind == JsonValueKind.String),
                "frame.field-type", $"{field}: expected [key, typed value] pairs, got {Describe(pairs)}");
            PutCount(pairs.GetArrayLength());
            foreach (JsonElement pair in pairs.EnumerateArray())
            {
                var writer = new MessagePackWriter(output!);
                writer.WriteString(Codec.StrictUtf8Bytes(pair[0].GetString()!));
                writer.Flush();
                Put(pair[1]);
            }
        }

        public void UuidList(string field)
        {
            if (Field(field) is not JsonElement list)
            {
                return;
            }
            WireError.Check(list.ValueKind == JsonValueKind.Array, "frame.field-type", $"{field}: expected an array of uuids, got {Describe(list)}");
            PutCount(list.GetArrayLength());
            int i = 0;
            foreach (JsonElement uuid in list.EnumerateArray())
            {
                Scalar($"{field}[{i++}]", uuid, "uuid");
            }
        }

        static readonly string[] ErrorMembers = ["trace_id", "code", "class_name", "message", "stack_trace", "extensions"];

        public void Error(string field)
        {
            if (Field(field) is JsonElement error)
            {
                ErrorObject(field, error);
            }
        }

        /// <summary>The six members in order: exactly those (frame.fields), each of its type.</summary>
        void ErrorObject(string field, JsonElement error)
        {
            // A typed value given instead (no member of the error object is called "type") is of the wrong type too.
            WireError.Check(error.ValueKind == JsonValueKind.Object && !error.TryGetProperty("type", out _), "frame.field-type",
                $"{field}: expected an error object, got {Describe(error)}");
            string[] names = [.. error.EnumerateObject().Select(m => m.Name).Order(StringComparer.Ordinal)];
            WireError.Check(names.SequenceEqual(ErrorMembers.Order(StringComparer.Ordinal)), "frame.fields",
                $"{field}: must have exactly the members [{string.Join(", ", ErrorMembers)}], has [{string.Join(", ", names)}]");
            Scalar($"{field}.trace_id", error.GetProperty("trace_id"), "uuid");
            Scalar($"{field}.code", error.GetProperty("code"), "int");
            Scalar($"{field}.class_name", error.GetProperty("class_name"), "str");
            Scalar($"{field}.message", error.GetProperty("message"), "str", nullable: true);
            Scalar($"{field}.stack_trace", error.GetProperty("stack_trace"), "str", nullable: true);
            JsonElement extensions = error.GetProperty("extensions");
            if (IsNil(extensions))
            {
                Put(extensions);
            }
            else
            {
                Pairs($"{field}.extensions", extensions);
            }
        }

        /// <summary>Typed nil (true: the success fields follow) or the error object (false: the message ends).</summary>
        public bool NilOrError(string field)
        {
            if (Planning)
            {
                wanted.Add(field);
                return fields.TryGetProperty(field, out JsonElement given) && IsNil(given);
            }
            JsonElement value = fields.GetProperty(field);
            if (IsNil(value))
            {
                Put(value);
                return true;
            }
            ErrorObject(field, value);
            return false;
        }

        public void Payload(string field)
        {
            if (Field(field) is not JsonElement payload)
            {
                return;
            }
            WireError.Check(payload.ValueKind == JsonValueKind.Array, "frame.field-type", $"{field}: expected an array of typed values, got {Describe(payload)}");
            foreach (JsonElement value in payload.EnumerateArray())
            {
                Put(value);
            }
        }
    }
}
