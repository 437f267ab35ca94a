using System;
using System.Buffers;
using System.Buffers.Binary;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Numerics;
using System.Text.Json;
using System.Text.Json.Nodes;
using MessagePack;

namespace IgniteRunner;

/// <summary>
/// Ignite extension payloads. Which code carries which layout in which era, and each layout's payload length, come
/// from schema/registry.json (read at start-up); the field layouts themselves are implemented here by layout id.
/// All fields are big-endian unless the layout says otherwise.
/// </summary>
sealed class IgniteExt
{
    /// <summary>Layout ids implemented here; an era using any other layout is not offered in the start answer.</summary>
    static readonly HashSet<string> KnownLayouts =
    [
        "number", "decimal-int32-scale", "decimal-varint-scale", "uuid-be", "uuid-le", "date", "time", "datetime",
        "timestamp", "bitmask", "ignite-uuid", "no-value",
    ];

    const long InstantMinSeconds = -31557014167219200;   // java.time.Instant.MIN / MAX epoch seconds
    const long InstantMaxSeconds = 31556889864403199;
    const long MaxYear = 999999999;                      // java.time.LocalDate year range
    const long MaxNano = 999999999;
    /// <summary>Highest bit index written: keeps the payload within a .NET array (far below ext32's limit).</summary>
    static readonly long MaxBitIndex = 8L * (Array.MaxLength - 16) - 1;

    sealed record Layout(string Id, string ValueType, bool Fixed, int Length);

    readonly List<string> eras = [];
    readonly Dictionary<string, Dictionary<sbyte, Layout>> layoutByEraCode = [];
    readonly Dictionary<string, Dictionary<string, (sbyte Code, Layout Layout)>> codeByEraValueType = [];

    public IgniteExt(JsonElement registry)
    {
        var layouts = new Dictionary<string, Layout>();
        foreach (JsonElement node in registry.GetProperty("layouts").EnumerateArray())
        {
            bool isFixed = node.GetProperty("payload").GetString() == "fixed";
            var layout = new Layout(node.GetProperty("id").GetString()!, node.GetProperty("value_type").GetString()!,
                isFixed, node.GetProperty(isFixed ? "length" : "min_length").GetInt32());
            layouts[layout.Id] = layout;
        }
        foreach (JsonElement era in registry.GetProperty("eras").EnumerateArray())
        {
            string id = era.GetProperty("id").GetString()!;
            eras.Add(id);
            layoutByEraCode[id] = [];
            codeByEraValueType[id] = [];
        }
        foreach (JsonElement type in registry.GetProperty("ext_types").EnumerateArray())
        {
            sbyte code = checked((sbyte)type.GetProperty("code").GetInt32());
            foreach (JsonProperty entry in type.GetProperty("layouts").EnumerateObject())
            {
                Layout layout = layouts[entry.Value.GetString()!];
                layoutByEraCode[entry.Name][code] = layout;
                codeByEraValueType[entry.Name][layout.ValueType] = (code, layout);
            }
        }
    }

    /// <summary>Registry eras whose every layout is implemented here ('msgpack' has none).</summary>
    public IEnumerable<string> SupportedEras =>
        eras.Where(era => layoutByEraCode[era].Values.All(layout => KnownLayouts.Contains(layout.Id)));

    public bool IsEra(string era) => layoutByEraCode.ContainsKey(era);

    /// <summary>Whether the era gives ext <paramref name="code"/> an Ignite meaning.</summary>
    public bool Assigns(string era, sbyte code) => layoutByEraCode[era].ContainsKey(code);

    // ---------------------------------------------------------------- decode

    /// <summary>The typed value for an ext the era assigns (the caller checked <see cref="Assigns"/>).</summary>
    public JsonObject Decode(string era, sbyte code, byte[] payload)
    {
        Layout layout = layoutByEraCode[era][code];
        WireError.Check(layout.Fixed ? payload.Length == layout.Length : payload.Length >= layout.Length,
            "invalid.ext-length", $"{layout.Id} payload of {payload.Length} bytes, needs {(layout.Fixed ? "" : ">= ")}{layout.Length}");
        var value = new JsonObject { ["type"] = layout.ValueType, ["era"] = era };
        ReadOnlySpan<byte> p = payload;
        switch (layout.Id)
        {
            case "number":
                value["value"] = Number(p).ToString();
                break;
            case "decimal-int32-scale":
                value["unscaled"] = Number(p[4..]).ToString();
                value["scale"] = BinaryPrimitives.ReadInt32BigEndian(p);
                break;
            case "decimal-varint-scale":
                DecodeVarintScale(payload, value);
                break;
            case "uuid-be":
                value["value"] = new Guid(p, bigEndian: true).ToString();
                break;
            case "uuid-le":
                value["value"] = new Guid(SwapHalves(p), bigEndian: true).ToString();
                break;
            case "date":
                PutDate(p, value);
                break;
            case "time":
                PutTime(p, value);
                break;
            case "datetime":
                PutDate(p, value);
                PutTime(p[6..], value);
                break;
            case "timestamp":
                long seconds = BinaryPrimitives.ReadInt64BigEndian(p);
                int nano = BinaryPrimitives.ReadInt32BigEndian(p[8..]);
                CheckInstant(seconds, nano);
                value["seconds"] = seconds.ToString();
                value["nano"] = nano;
                break;
            case "bitmask":
                var bits = new JsonArray();
                for (int k = 0; k < p.Length; k++)
                {
                    for (int j = 0; j < 8; j++)
                    {
                        if ((p[k] >> j & 1) != 0)
                        {
                            bits.Add((JsonNode)(8L * k + j));   // JsonValue.Create(long), not Add<T>'s reflection
                        }
                    }
                }
                value["bits"] = bits;
                break;
            case "ignite-uuid":
                value["global"] = new Guid(p[..16], bigEndian: true).ToString();
                value["local"] = BinaryPrimitives.ReadInt64BigEndian(p[16..]).ToString();
                break;
            case "no-value":   // one byte, whose value readers ignore
                break;
            default:
                throw new NotImplementedException($"layout {layout.Id} not implemented");
        }
        return value;
    }

    /// <summary>Two's-complement big-endian, as Java's BigInteger(byte[]).</summary>
    static BigInteger Number(ReadOnlySpan<byte> p) => new(p, isUnsigned: false, isBigEndian: true);

    /// <summary>Both 8-byte halves reversed: uuid-le's byte order to and from the UUID's text order.</summary>
    static byte[] SwapHalves(ReadOnlySpan<byte> p)
    {
        byte[] swapped = p.ToArray();
        Array.Reverse(swapped, 0, 8);
        Array.Reverse(swapped, 8, 8);
        return swapped;
    }

    /// <summary>alpha5: the scale is a complete MessagePack int at the payload's start; the library reads it.</summary>
    static void DecodeVarintScale(byte[] payload, JsonObject value)
    {
        byte first = payload[0];
        WireError.Check(first <= 0x7f || first >= 0xe0 || (first >= 0xcc && first <= 0xd3), "invalid.ext-value",
            $"scale starts with {first:x2}, not a MessagePack int");
        var reader = new MessagePackReader(payload);
        long scale;
        try
        {
            scale = reader.ReadInt64();
        }
        catch (EndOfStreamException)
        {
            throw new WireError("invalid.ext-value", "scale int cut short");
        }
        catch (OverflowException)   // a uint64 above int64 max
        {
            throw new WireError("invalid.ext-value", "scale outside int32");
        }
        WireError.Check(scale >= int.MinValue && scale <= int.MaxValue, "invalid.ext-value", $"scale {scale} outside int32");
        WireError.Check(reader.Consumed < payload.Length, "invalid.ext-value", "no unscaled value after the scale");
        value["unscaled"] = Number(payload.AsSpan((int)reader.Consumed)).ToString();
        value["scale"] = scale;
    }

    static void PutDate(ReadOnlySpan<byte> p, JsonObject value)
    {
        int year = BinaryPrimitives.ReadInt32BigEndian(p);
        CheckDate(year, p[4], p[5]);
        value["year"] = year;
        value["month"] = p[4];
        value["day"] = p[5];
    }

    static void PutTime(ReadOnlySpan<byte> p, JsonObject value)
    {
        int nano = BinaryPrimitives.ReadInt32BigEndian(p[3..]);
        CheckTime(p[0], p[1], p[2], nano);
        value["hour"] = p[0];
        value["minute"] = p[1];
        value["second"] = p[2];
        value["nano"] = nano;
    }

    // ---- field validation shared by decode and encode (both answer invalid.ext-value) ----

    public static int DaysInMonth(long year, long month)
    {
        bool leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
        return month == 2 ? (leap ? 29 : 28) : month is 4 or 6 or 9 or 11 ? 30 : 31;
    }

    static void CheckDate(long y, long m, long d) =>
        WireError.Check(y >= -MaxYear && y <= MaxYear && m >= 1 && m <= 12 && d >= 1 && d <= DaysInMonth(y, m),
            "invalid.ext-value", $"no such date {y}-{m}-{d}");

    static void CheckTime(long h, long mi, long s, long n) =>
        WireError.Check(h is >= 0 and <= 23 && mi is >= 0 and <= 59 && s is >= 0 and <= 59 && n is >= 0 and <= MaxNano,
            "invalid.ext-value", $"no such time {h}:{mi}:{s}.{n}");

    static void CheckInstant(BigInteger seconds, long nano) =>
        WireError.Check(seconds >= InstantMinSeconds && seconds <= InstantMaxSeconds && nano is >= 0 and <= MaxNano,
            "invalid.ext-value", $"no such instant {seconds}s {nano}ns");

    // ---------------------------------------------------------------- encode

    /// <summary>The ext code and payload of an Ignite typed value, in the era the value names.</summary>
    public (sbyte Code, byte[] Payload) Encode(JsonElement v)
    {
        string type = Fields.Text(v, "type");
        string era = Fields.Text(v, "era");
        if (!codeByEraValueType.TryGetValue(era, out var types) || !types.TryGetValue(type, out var entry))
        {
            throw WireError.Unrepresentable($"era {era} has no ext type for {type}");
        }
        return (entry.Code, entry.Layout.Id switch
        {
            "number" => NumberBytes(Fields.Digits(v, "value")),
            "decimal-int32-scale" => EncodeDecimal(v, varint: false),
            "decimal-varint-scale" => EncodeDecimal(v, varint: true),
            "uuid-be" => UuidBytes(Fields.Text(v, "value")),
            "uuid-le" => SwapHalves(UuidBytes(Fields.Text(v, "value"))),
            "date" => EncodeDate(v),
            "time" => EncodeTime(v),
            "datetime" => [.. EncodeDate(v), .. EncodeTime(v)],
            "timestamp" => EncodeTimestamp(v),
            "bitmask" => EncodeBitmask(v),
            "ignite-uuid" => EncodeIgniteUuid(v),
            "no-value" => [0],
            string id => throw new NotImplementedException($"layout {id} not implemented"),
        });
    }

    /// <summary>Minimal two's complement, as Java's BigInteger.toByteArray.</summary>
    public static byte[] NumberBytes(BigInteger n) => n.ToByteArray(isUnsigned: false, isBigEndian: true);

    static byte[] UuidBytes(string text)
    {
        byte[] raw = new byte[16];
        Guid.Parse(text).TryWriteBytes(raw, bigEndian: true, out _);
        return raw;
    }

    static byte[] EncodeDecimal(JsonElement v, bool varint)
    {
        BigInteger scale = Fields.Integer(v, "scale");
        WireError.Check(scale >= int.MinValue && scale <= int.MaxValue, "unrepresentable", $"scale {scale} outside int32");
        byte[] unscaled = NumberBytes(Fields.Digits(v, "unscaled"));
        var out_ = new ArrayBufferWriter<byte>();
        if (varint)
        {
            var writer = new MessagePackWriter(out_);
            writer.Write((int)scale);
            writer.Flush();
        }
        else
        {
            BinaryPrimitives.WriteInt32BigEndian(out_.GetSpan(4), (int)scale);
            out_.Advance(4);
        }
        out_.Write(unscaled);
        return out_.WrittenSpan.ToArray();
    }

    static byte[] EncodeDate(JsonElement v)
    {
        long y = Fields.Long(v, "year", "invalid.ext-value"), m = Fields.Long(v, "month", "invalid.ext-value"),
            d = Fields.Long(v, "day", "invalid.ext-value");
        CheckDate(y, m, d);
        byte[] p = new byte[6];
        BinaryPrimitives.WriteInt32BigEndian(p, (int)y);
        p[4] = (byte)m;
        p[5] = (byte)d;
        return p;
    }

    static byte[] EncodeTime(JsonElement v)
    {
        long h = Fields.Long(v, "hour", "invalid.ext-value"), mi = Fields.Long(v, "minute", "invalid.ext-value"),
            s = Fields.Long(v, "second", "invalid.ext-value"), n = Fields.Long(v, "nano", "invalid.ext-value");
        CheckTime(h, mi, s, n);
        byte[] p = [(byte)h, (byte)mi, (byte)s, 0, 0, 0, 0];
        BinaryPrimitives.WriteInt32BigEndian(p.AsSpan(3), (int)n);
        return p;
    }

    static byte[] EncodeTimestamp(JsonElement v)
    {
        BigInteger seconds = Fields.Digits(v, "seconds");
        long nano = Fields.Long(v, "nano", "invalid.ext-value");
        CheckInstant(seconds, nano);
        byte[] p = new byte[12];
        BinaryPrimitives.WriteInt64BigEndian(p, (long)seconds);
        BinaryPrimitives.WriteInt32BigEndian(p.AsSpan(8), (int)nano);
        return p;
    }

    static byte[] EncodeBitmask(JsonElement v) => BitmaskBytes(Fields.Array(v, "bits").EnumerateArray().Select(bit => bit.GetInt64()));

    /// <summary>Byte k holds bits 8k..8k+7; the highest bit sets the last byte, so the payload is already trimmed.</summary>
    static byte[] BitmaskBytes(IEnumerable<long> indices)
    {
        long[] bits = [.. indices];
        foreach (long index in bits)
        {
            WireError.Check(index >= 0 && index <= MaxBitIndex, "unrepresentable", $"bit index {index} outside 0..{MaxBitIndex}");
        }
        byte[] p = new byte[bits.Length == 0 ? 0 : bits.Max() / 8 + 1];
        foreach (long index in bits)
        {
            p[index / 8] |= (byte)(1 << (int)(index % 8));
        }
        return p;
    }

    /// <summary>The era's BITMASK ext (the no-value set of a table row, spec 6.2) for these bit indices.</summary>
    public (sbyte Code, byte[] Payload) Bitmask(string era, IEnumerable<long> indices)
    {
        if (!codeByEraValueType[era].TryGetValue("bitmask", out var entry))
        {
            throw WireError.Unrepresentable($"era {era} has no ext type for bitmask");
        }
        return (entry.Code, BitmaskBytes(indices));
    }

    static byte[] EncodeIgniteUuid(JsonElement v)
    {
        BigInteger local = Fields.Digits(v, "local");
        WireError.Check(local >= long.MinValue && local <= long.MaxValue, "unrepresentable", $"local id {local} outside int64");
        byte[] p = new byte[24];
        UuidBytes(Fields.Text(v, "global")).CopyTo(p, 0);
        BinaryPrimitives.WriteInt64BigEndian(p.AsSpan(16), (long)local);
        return p;
    }
}
