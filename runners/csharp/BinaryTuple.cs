using System;
using System.Buffers;
using System.Buffers.Binary;
using System.Collections.Generic;
using System.Linq;
using System.Numerics;
using System.Text.Json;
using System.Text.Json.Nodes;
using MessagePack;

namespace IgniteRunner;

/// <summary>
/// Binary Tuple (IEP-92) codec, spec.md 6.2, mirrored on runners/python/binary_tuple.py. Elements are
/// ColumnType-typed values ({"type": "INT32", ...}).
///   ReadTuple / WriteTuple          header, offset table, value area (era 3.0; beta1 adds the null map)
///   DecodeElement / EncodeElement   one element per ColumnType
///   Decode / Encode                 the formats: binary-tuple, object, object-array, batched-arguments, table-row, collection,
///                                   compute-arg; the MessagePack
///                                   around a tuple (c0, bin, int N, the no-value BITMASK) goes through Codec
/// Everything in a tuple is little-endian except the DECIMAL unscaled value (big-endian two's complement).
/// MessagePack-CSharp has no part in the tuple itself: it is plain byte work.
/// </summary>
sealed class BinaryTuple(Codec codec, IgniteExt ignite)
{
    public static readonly string[] Formats = ["binary-tuple", "object", "object-array", "table-row", "collection", "compute-arg", "batched-arguments"];

    /// <summary>ColumnType ids on the 3.0 wire (14 and 19 are not value types there).</summary>
    static readonly Dictionary<string, int> TypeIds = new()
    {
        ["NULL"] = 0, ["BOOLEAN"] = 1, ["INT8"] = 2, ["INT16"] = 3, ["INT32"] = 4, ["INT64"] = 5, ["FLOAT"] = 6,
        ["DOUBLE"] = 7, ["DECIMAL"] = 8, ["DATE"] = 9, ["TIME"] = 10, ["DATETIME"] = 11, ["TIMESTAMP"] = 12,
        ["UUID"] = 13, ["STRING"] = 15, ["BYTE_ARRAY"] = 16, ["PERIOD"] = 17, ["DURATION"] = 18,
    };
    static readonly Dictionary<int, string> TypeNames = TypeIds.Where(e => e.Value != 0).ToDictionary(e => e.Value, e => e.Key);
    static readonly Dictionary<string, int[]> IntWidths = new()
    {
        ["INT8"] = [1], ["INT16"] = [1, 2], ["INT32"] = [1, 2, 4], ["INT64"] = [1, 2, 4, 8],
    };
    /// <summary>TIME element length -> (fraction bits, nanoseconds per unit).</summary>
    static readonly Dictionary<int, (int Bits, long Unit)> TimeForms = new() { [4] = (10, 1_000_000), [5] = (20, 1000), [6] = (30, 1) };
    const long InstantMinSeconds = -31557014167219200;
    const long InstantMaxSeconds = 31556889864403199;
    const long MaxNano = 999_999_999;
    const byte Empty = 0x80;   // varlen marker byte
    /// <summary>The same bound the other runners use for rescaling a DECIMAL object to its scale element.</summary>
    const int MaxRescaleDigits = 100_000;

    static bool Fits(BigInteger n, int size) => n >= -(BigInteger.One << (8 * size - 1)) && n < BigInteger.One << (8 * size - 1);

    static void Check(bool ok, string errorClass, string message) => WireError.Check(ok, errorClass, message);

    // ---------------------------------------------------------------- the tuple

    /// <summary>The n element byte strings (empty for a zero-length element) and, for beta1, the NULL indices.</summary>
    static (byte[][] Parts, HashSet<long> Nulls) ReadTuple(byte[] data, long n, string era)
    {
        Check(data.Length >= 1, "malformed.truncated", "no header byte");
        int flags = data[0];
        int reserved = era == "beta1" ? 0xf8 : 0xfc;   // beta1: bit 2 is the null-map flag
        Check((flags & reserved) == 0, "malformed.tuple-header", $"reserved header bits {flags & reserved:x2}");
        Check((flags & 3) != 3, "malformed.tuple-header", "8-byte offset entries do not exist");
        int size = 1 << (flags & 3);
        // Every offset entry takes >= 1 byte: a count beyond the input is refused before anything is computed from it.
        Check(n <= data.Length, "malformed.truncated", $"{n} offset entries in {data.Length} bytes");
        long nullmap = (flags & 4) != 0 ? (n + 7) / 8 : 0;
        long base_ = 1 + nullmap + n * size;
        Check(base_ <= data.Length, "malformed.truncated", $"header and offset table need {base_} bytes, {data.Length} given");
        var nulls = new HashSet<long>();
        for (long i = 0; nullmap > 0 && i < n; i++)
        {
            if ((data[1 + i / 8] >> (int)(i % 8) & 1) != 0)
            {
                nulls.Add(i);
            }
        }
        var parts = new byte[n][];
        long start = 0;
        for (long i = 0; i < n; i++)
        {
            long at = 1 + nullmap + i * size;
            long end = size switch
            {
                1 => data[at],
                2 => BinaryPrimitives.ReadUInt16LittleEndian(data.AsSpan((int)at)),
                _ => BinaryPrimitives.ReadUInt32LittleEndian(data.AsSpan((int)at)),
            };
            Check(end >= start, "malformed.tuple-offsets", $"element {i} ends at {end}, before its start {start}");
            Check(base_ + end <= data.Length, "malformed.tuple-offsets", $"element {i} ends at {base_ + end}, past the input ({data.Length})");
            parts[i] = data[(int)(base_ + start)..(int)(base_ + end)];
            start = end;
        }
        // Strict: the input is exactly one tuple (spec BT-TRAILING leaves this to the implementation).
        Check(base_ + start == data.Length, "malformed.tuple-offsets", $"{data.Length - base_ - start} bytes after the last element");
        return (parts, nulls);
    }

    /// <summary>Header, (beta1: null map,) end offsets in the smallest entry size for the value area, values.</summary>
    static byte[] WriteTuple(byte[][] parts, int[]? nulls = null)
    {
        long areaLength = parts.Sum(p => (long)p.Length);
        int size = areaLength <= 0xff ? 1 : areaLength <= 0xffff ? 2 : 4;
        bool withNulls = nulls is { Length: > 0 };
        var output = new ArrayBufferWriter<byte>();
        output.Write([(byte)((size == 1 ? 0 : size == 2 ? 1 : 2) | (withNulls ? 4 : 0))]);
        if (withNulls)
        {
            byte[] mask = new byte[(parts.Length + 7) / 8];
            foreach (int i in nulls!)
            {
                mask[i / 8] |= (byte)(1 << (i % 8));
            }
            output.Write(mask);
        }
        Span<byte> entry = stackalloc byte[4];
        uint end = 0;
        foreach (byte[] part in parts)
        {
            end += (uint)part.Length;
            BinaryPrimitives.WriteUInt32LittleEndian(entry, end);
            output.Write(entry[..size]);
        }
        foreach (byte[] part in parts)
        {
            output.Write(part);
        }
        return output.WrittenSpan.ToArray();
    }

    // ---------------------------------------------------------------- elements: decode

    static void Need(string t, byte[] b, bool ok) => Check(ok, "invalid.tuple-length", $"{t} element of {b.Length} bytes");

    static BigInteger Signed(ReadOnlySpan<byte> b) => new(b, isUnsigned: false, isBigEndian: false);

    static string BitsHex(ReadOnlySpan<byte> littleEndian)
    {
        byte[] bigEndian = littleEndian.ToArray();
        Array.Reverse(bigEndian);
        return Fields.Hex(bigEndian);
    }

    static void PutTime(byte[] b, JsonObject v)
    {
        (int bits, long unit) = TimeForms[b.Length];
        ulong x = 0;
        for (int i = b.Length - 1; i >= 0; i--)
        {
            x = x << 8 | b[i];
        }
        long frac = (long)(x & ((1UL << bits) - 1));
        x >>= bits;
        long s = (long)(x & 63), mi = (long)(x >> 6 & 63), h = (long)(x >> 12 & 31), rest = (long)(x >> 17);
        // Strict on the unused top bits (spec BT-TIME-PADDING leaves them to the implementation; Java ignores them).
        Check(rest == 0, "invalid.tuple-value", "unused TIME bits set");
        Check(h <= 23 && mi <= 59 && s <= 59 && frac * unit <= MaxNano, "invalid.tuple-value", $"no time {h}:{mi}:{s} + {frac} x {unit} ns");
        v["hour"] = h;
        v["minute"] = mi;
        v["second"] = s;
        v["nano"] = frac * unit;
    }

    static void PutDate(ReadOnlySpan<byte> b, JsonObject v)
    {
        long d = (long)Signed(b);   // the 24-bit value, year sign-extended from bit 23
        long y = d >> 9, m = d >> 5 & 15, day = d & 31;
        Check(m >= 1 && m <= 12 && day >= 1 && day <= IgniteExt.DaysInMonth(y, m), "invalid.tuple-value", $"no date {y}-{m}-{day}");
        v["year"] = y;
        v["month"] = m;
        v["day"] = day;
    }

    static void PutSecondsNanos(string t, byte[] b, JsonObject v)
    {
        Need(t, b, b.Length is 8 or 12);
        // any int32 nanos, normalised as Java's Instant.ofEpochSecond / Duration.ofSeconds do (spec BT-TIMESTAMP, BT-DURATION)
        long raw = b.Length == 12 ? BinaryPrimitives.ReadInt32LittleEndian(b.AsSpan(8)) : 0;
        long nano = raw % (MaxNano + 1), carry = raw / (MaxNano + 1);
        if (nano < 0)
        {
            nano += MaxNano + 1;
            carry--;
        }
        var wide = (Int128)BinaryPrimitives.ReadInt64LittleEndian(b) + carry;
        Check(wide >= long.MinValue && wide <= long.MaxValue, "invalid.tuple-value", $"seconds {wide} outside int64");
        long seconds = (long)wide;
        if (t == "TIMESTAMP")
        {
            Check(seconds >= InstantMinSeconds && seconds <= InstantMaxSeconds, "invalid.tuple-value", $"seconds {seconds} outside Instant");
        }
        v["seconds"] = seconds.ToString();
        v["nano"] = nano;
    }

    static ReadOnlySpan<byte> Varlen(byte[] b) => b.Length > 0 && b[0] == Empty ? b.AsSpan(1) : b;   // strip exactly one leading 80

    /// <summary>The typed value of a non-empty element of column type t.</summary>
    static JsonObject DecodeElement(string t, byte[] b, string era = "3.0")
    {
        var v = new JsonObject { ["type"] = t };
        switch (t)
        {
            case "BOOLEAN":
                Need(t, b, b.Length == 1);
                Check(b[0] <= 1, "invalid.tuple-value", $"BOOLEAN byte {b[0]:x2}");   // BT-BOOLEAN-OTHER: strict
                v["value"] = b[0] == 1;
                break;
            case "INT8" or "INT16" or "INT32" or "INT64":
                Need(t, b, IntWidths[t].Contains(b.Length));
                v["value"] = Signed(b).ToString();
                break;
            case "FLOAT":
                Need(t, b, b.Length == 4);
                v["bits"] = BitsHex(b);
                break;
            case "DOUBLE":
                Need(t, b, b.Length is 4 or 8);
                // A 4-byte DOUBLE is a float widened as Java's cast does (a signalling NaN comes out quiet).
                v["bits"] = b.Length == 8 ? BitsHex(b)
                    : BitConverter.DoubleToInt64Bits(BinaryPrimitives.ReadSingleLittleEndian(b)).ToString("x16");
                break;
            case "DECIMAL":
                Need(t, b, b.Length >= 3);
                v["unscaled"] = new BigInteger(b.AsSpan(2), isUnsigned: false, isBigEndian: true).ToString();
                v["scale"] = (long)Signed(b.AsSpan(0, 2));
                break;
            case "DATE":
                Need(t, b, b.Length == 3);
                PutDate(b, v);
                break;
            case "TIME":
                Need(t, b, TimeForms.ContainsKey(b.Length));
                PutTime(b, v);
                break;
            case "DATETIME":
                Need(t, b, TimeForms.ContainsKey(b.Length - 3));
                PutDate(b.AsSpan(0, 3), v);
                PutTime(b[3..], v);
                break;
            case "TIMESTAMP" or "DURATION":
                PutSecondsNanos(t, b, v);
                break;
            case "UUID":
                Need(t, b, b.Length == 16);
                byte[] swapped = (byte[])b.Clone();
                Array.Reverse(swapped, 0, 8);
                Array.Reverse(swapped, 8, 8);
                v["value"] = new Guid(swapped, bigEndian: true).ToString();
                break;
            case "STRING":
                v["value"] = Codec.Utf8(era == "beta1" ? b : Varlen(b));
                break;
            case "BYTE_ARRAY":
                v["hex"] = Fields.Hex(era == "beta1" ? b : Varlen(b));
                break;
            case "PERIOD":
                Need(t, b, b.Length is 3 or 6 or 12);
                int k = b.Length / 3;
                v["years"] = (long)Signed(b.AsSpan(0, k));
                v["months"] = (long)Signed(b.AsSpan(k, k));
                v["days"] = (long)Signed(b.AsSpan(2 * k, k));
                break;
            case "NUMBER" when era == "beta1":   // a beta1-only column type (spec 6.2.8): BigInteger, big-endian
                v["value"] = new BigInteger(b, isUnsigned: false, isBigEndian: true).ToString();
                break;
            default:
                throw new WireError("invalid.tuple-type", $"no column type '{t}'");
        }
        return v;
    }

    /// <summary>beta1 (BT-1): a zero-length element of a non-NULL column is the type's default.</summary>
    static JsonObject? Beta1Default(string t) => t switch
    {
        "BOOLEAN" => new JsonObject { ["type"] = t, ["value"] = false },
        "FLOAT" => new JsonObject { ["type"] = t, ["bits"] = "00000000" },
        "DOUBLE" => new JsonObject { ["type"] = t, ["bits"] = "0000000000000000" },
        "STRING" => new JsonObject { ["type"] = t, ["value"] = "" },
        "BYTE_ARRAY" => new JsonObject { ["type"] = t, ["hex"] = "" },
        "INT8" or "INT16" or "INT32" or "INT64" => new JsonObject { ["type"] = t, ["value"] = "0" },
        // zero length by value (nil UUID) or because java.time returns its constants for zero (spec 6.2.8)
        "UUID" => new JsonObject { ["type"] = t, ["value"] = "00000000-0000-0000-0000-000000000000" },
        "TIME" => new JsonObject { ["type"] = t, ["hour"] = 0, ["minute"] = 0, ["second"] = 0, ["nano"] = 0 },
        "TIMESTAMP" or "DURATION" => new JsonObject { ["type"] = t, ["seconds"] = "0", ["nano"] = 0 },
        "PERIOD" => new JsonObject { ["type"] = t, ["years"] = 0, ["months"] = 0, ["days"] = 0 },
        "NUMBER" => new JsonObject { ["type"] = t, ["value"] = "0" },   // zero by value (appendNumberNotNull)
        // the reader's DEFAULT_DATE and DEFAULT_DATE_TIME (spec BT-BETA1)
        "DATE" => new JsonObject { ["type"] = t, ["year"] = 0, ["month"] = 1, ["day"] = 1 },
        "DATETIME" => new JsonObject
        {
            ["type"] = t, ["year"] = 0, ["month"] = 1, ["day"] = 1, ["hour"] = 0, ["minute"] = 0, ["second"] = 0, ["nano"] = 0,
        },
        _ => null,
    };

    static JsonObject DecodeColumn(string t, byte[] b, string era, bool isNull = false)
    {
        if (era == "beta1")
        {
            if (isNull)
            {
                return Codec.Typed("NULL");
            }
            if (t == "DECIMAL")   // the unscaled value only; its scale is the column's (spec BT-BETA1)
            {
                throw new NotImplementedException("beta1 DECIMAL is not modelled (spec 6.2.8)");
            }
            if (b.Length == 0)
            {
                return Beta1Default(t) ?? throw new WireError("invalid.tuple-length", $"no beta1 default for {t}");
            }
        }
        else if (b.Length == 0)
        {
            return Codec.Typed("NULL");
        }
        return DecodeElement(t, b, era);
    }

    // ---------------------------------------------------------------- elements: encode

    static byte[] LittleEndian(BigInteger n, int size)
    {
        byte[] b = new byte[size];
        n.TryWriteBytes(b, out _, isUnsigned: false, isBigEndian: false);
        if (n.Sign < 0)   // TryWriteBytes writes the minimal length: sign-extend the rest
        {
            int written = n.GetByteCount();
            b.AsSpan(written).Fill(0xff);
        }
        return b;
    }

    static byte[] EncodeInt(string t, BigInteger n)
    {
        foreach (int size in IntWidths[t])
        {
            if (Fits(n, size))
            {
                return LittleEndian(n, size);
            }
        }
        throw WireError.Unrepresentable($"{n} does not fit {t}");
    }

    /// <summary>4 bytes when the float32 rounding reads back equal (x == (double)(float)x), else 8.</summary>
    static byte[] EncodeDouble(string bits)
    {
        long raw = long.Parse(bits, System.Globalization.NumberStyles.AllowHexSpecifier);
        double x = BitConverter.Int64BitsToDouble(raw);
        float narrow = (float)x;
        byte[] b;
        if ((double)narrow == x)
        {
            b = new byte[4];
            BinaryPrimitives.WriteSingleLittleEndian(b, narrow);
        }
        else
        {
            b = new byte[8];
            BinaryPrimitives.WriteInt64LittleEndian(b, raw);
        }
        return b;
    }

    static byte[] EncodeDate(JsonElement v)
    {
        long y = Fields.Long(v, "year", "unrepresentable"), m = Fields.Long(v, "month", "invalid.tuple-value"),
            d = Fields.Long(v, "day", "invalid.tuple-value");
        Check(m >= 1 && m <= 12 && d >= 1 && d <= IgniteExt.DaysInMonth(y, m), "invalid.tuple-value", $"no date {y}-{m}-{d}");
        Check(y >= -16384 && y <= 16383, "unrepresentable", $"year {y} does not fit 15 bits");
        long packed = (y << 9 | m << 5 | d) & 0xffffff;
        return [(byte)packed, (byte)(packed >> 8), (byte)(packed >> 16)];
    }

    static byte[] EncodeTime(JsonElement v)
    {
        long h = Fields.Long(v, "hour", "invalid.tuple-value"), mi = Fields.Long(v, "minute", "invalid.tuple-value"),
            s = Fields.Long(v, "second", "invalid.tuple-value"), n = Fields.Long(v, "nano", "invalid.tuple-value");
        Check(h is >= 0 and <= 23 && mi is >= 0 and <= 59 && s is >= 0 and <= 59 && n is >= 0 and <= MaxNano,
            "invalid.tuple-value", $"no time {h}:{mi}:{s}.{n}");
        int size = n % 1000 != 0 ? 6 : n % 1_000_000 != 0 ? 5 : 4;
        (int bits, long unit) = TimeForms[size];
        ulong x = (ulong)((h << 12 | mi << 6 | s) << bits | n / unit);
        byte[] b = new byte[size];
        for (int i = 0; i < size; i++)
        {
            b[i] = (byte)(x >> (8 * i));
        }
        return b;
    }

    static byte[] EncodeSecondsNanos(string t, JsonElement v)
    {
        BigInteger seconds = Fields.Digits(v, "seconds");
        long nano = Fields.Long(v, "nano", "invalid.tuple-value");
        Check(nano >= 0 && nano <= MaxNano, "invalid.tuple-value", $"nano {nano}");
        if (t == "TIMESTAMP")
        {
            Check(seconds >= InstantMinSeconds && seconds <= InstantMaxSeconds, "invalid.tuple-value", $"seconds {seconds}");
        }
        Check(Fits(seconds, 8), "unrepresentable", $"seconds {seconds} outside int64");
        byte[] b = new byte[nano != 0 ? 12 : 8];
        BinaryPrimitives.WriteInt64LittleEndian(b, (long)seconds);
        if (nano != 0)
        {
            BinaryPrimitives.WriteInt32LittleEndian(b.AsSpan(8), (int)nano);
        }
        return b;
    }

    static byte[] EncodeDecimal(BigInteger unscaled, BigInteger scale)
    {
        Check(Fits(scale, 2), "unrepresentable", $"scale {scale} outside int16");
        return [.. LittleEndian(scale, 2), .. IgniteExt.NumberBytes(unscaled)];
    }

    static byte[] EncodeVarlen(byte[] data) => data.Length == 0 || data[0] == Empty ? [Empty, .. data] : data;

    static byte[] EncodeElement(JsonElement v, string era = "3.0")
    {
        string t = Fields.Text(v, "type");
        if (t is "NULL" or "NO_VALUE")
        {
            return [];
        }
        if (era == "beta1")
        {
            return EncodeElementBeta1(t, v);
        }
        switch (t)
        {
            case "BOOLEAN":
                return [Fields.Bool(v, "value") ? (byte)1 : (byte)0];
            case "INT8" or "INT16" or "INT32" or "INT64":
                return EncodeInt(t, Fields.Digits(v, "value"));
            case "FLOAT":
                byte[] f = Fields.Hex(v, "bits");
                Array.Reverse(f);
                return f;
            case "DOUBLE":
                return EncodeDouble(Fields.Text(v, "bits"));
            case "DECIMAL":
                return EncodeDecimal(Fields.Digits(v, "unscaled"), Fields.Integer(v, "scale"));
            case "DATE":
                return EncodeDate(v);
            case "TIME":
                return EncodeTime(v);
            case "DATETIME":
                return [.. EncodeDate(v), .. EncodeTime(v)];
            case "TIMESTAMP" or "DURATION":
                return EncodeSecondsNanos(t, v);
            case "UUID":
                byte[] u = new byte[16];
                Guid.Parse(Fields.Text(v, "value")).TryWriteBytes(u, bigEndian: true, out _);
                Array.Reverse(u, 0, 8);
                Array.Reverse(u, 8, 8);
                return u;
            case "STRING":
                return EncodeVarlen(Codec.StrictUtf8Bytes(Fields.Text(v, "value")));
            case "BYTE_ARRAY":
                return EncodeVarlen(Fields.Hex(v, "hex"));
            case "PERIOD":
                BigInteger[] parts = [Fields.Integer(v, "years"), Fields.Integer(v, "months"), Fields.Integer(v, "days")];
                foreach (int size in new[] { 1, 2, 4 })
                {
                    if (parts.All(p => Fits(p, size)))
                    {
                        return [.. parts.SelectMany(p => LittleEndian(p, size))];
                    }
                }
                throw WireError.Unrepresentable($"period ({string.Join(", ", parts)}) outside int32");
            default:
                throw new WireError("invalid.tuple-type", $"no element type '{t}'");
        }
    }

    /// <summary>BT-1: defaults (0, 0.0, false, empty) are zero-length; no 80 marker.</summary>
    static byte[] EncodeElementBeta1(string t, JsonElement v)
    {
        switch (t)
        {
            case "STRING":
                return Codec.StrictUtf8Bytes(Fields.Text(v, "value"));
            case "BYTE_ARRAY":
                return Fields.Hex(v, "hex");
            case "BOOLEAN":
                return Fields.Bool(v, "value") ? EncodeElement(v) : [];
            case "FLOAT" or "DOUBLE":
                return Fields.Text(v, "bits").All(c => c == '0') ? [] : EncodeElement(v);
            case "INT8" or "INT16" or "INT32" or "INT64":
                return Fields.Text(v, "value") == "0" ? [] : EncodeElement(v);
            case "NUMBER":   // BigInteger.toByteArray, nothing for zero
                BigInteger n = Fields.Digits(v, "value");
                return n.IsZero ? [] : IgniteExt.NumberBytes(n);
            case "UUID" or "TIME" or "TIMESTAMP" or "DURATION" or "PERIOD" or "DATE" or "DATETIME":
                bool zero = Beta1Default(t)!.All(f => f.Key == "type"
                    || (v.TryGetProperty(f.Key, out JsonElement x) && x.GetRawText() == f.Value!.ToJsonString()));
                return zero ? [] : EncodeElement(v);
            default:
                throw new NotImplementedException($"beta1 {t} is not modelled (spec 6.2.8)");
        }
    }

    // ---------------------------------------------------------------- triples

    /// <summary>Java BigDecimal.stripTrailingZeros(); zero becomes (0, 0).</summary>
    static (BigInteger Unscaled, BigInteger Scale) Stripped(BigInteger unscaled, BigInteger scale)
    {
        if (unscaled.IsZero)
        {
            return (0, 0);
        }
        while ((unscaled % 10).IsZero)
        {
            unscaled /= 10;
            scale -= 1;
        }
        return (unscaled, scale);
    }

    static byte[][] Triple(JsonElement v)
    {
        string t = Fields.Text(v, "type");
        if (t == "NULL")
        {
            return [[], [], []];
        }
        Check(TypeIds.ContainsKey(t), "invalid.tuple-type", $"no object type '{t}'");
        BigInteger scale = 0;
        byte[]? value = null;
        if (t == "DECIMAL")
        {
            BigInteger unscaled = Fields.Digits(v, "unscaled");
            scale = Fields.Integer(v, "scale");
            Check(Fits(scale, 4), "unrepresentable", $"scale {scale} outside int32");
            (BigInteger su, BigInteger ss) = Stripped(unscaled, scale);   // the java producer profile (canonical): shrinkDecimal
            value = Fits(ss, 2) ? EncodeDecimal(su, ss) : EncodeDecimal(unscaled, scale);
        }
        return [EncodeInt("INT32", TypeIds[t]), EncodeInt("INT32", scale), value ?? EncodeElement(v)];
    }

    static JsonObject ReadTriple(byte[][] parts, long at)
    {
        byte[] typeB = parts[at], scaleB = parts[at + 1], valueB = parts[at + 2];
        if (typeB.Length == 0)
        {
            return Codec.Typed("NULL");
        }
        long typeId = long.Parse(DecodeElement("INT32", typeB)["value"]!.GetValue<string>());
        Check(TypeNames.TryGetValue((int)typeId, out string? t), "invalid.tuple-type", $"type id {typeId} is not a 3.0 value type");
        Check(valueB.Length > 0, "invalid.tuple-length", $"{t} object without a value");
        JsonObject v = DecodeElement(t!, valueB);
        if (t != "DECIMAL")
        {
            return v;
        }
        // Java reads the scale with intValue, which refuses a zero-length element (spec BT-OBJECT-DECIMAL-SCALE).
        Check(scaleB.Length > 0, "invalid.tuple-length", "DECIMAL object with a NULL scale element");
        long want = long.Parse(DecodeElement("INT32", scaleB)["value"]!.GetValue<string>());
        var unscaled = BigInteger.Parse(v["unscaled"]!.GetValue<string>());
        long scale = v["scale"]!.GetValue<long>();
        // The scale element may ask for 10^(2^31): decide what can be decided without computing it.
        if (unscaled.IsZero)
        {
        }
        else if (scale <= want)
        {
            if (want - scale > MaxRescaleDigits)
            {
                throw new NotImplementedException($"rescaling to scale {want} needs over {MaxRescaleDigits} digits");
            }
            unscaled *= BigInteger.Pow(10, (int)(want - scale));
        }
        else if (scale - want > BigInteger.Abs(unscaled).ToString().Length)
        {
            throw new WireError("invalid.tuple-value", $"({unscaled}, {scale}) does not rescale exactly to scale {want}");
        }
        else
        {
            BigInteger q = BigInteger.DivRem(unscaled, BigInteger.Pow(10, (int)(scale - want)), out BigInteger r);
            Check(r.IsZero, "invalid.tuple-value", $"({unscaled}, {scale}) does not rescale exactly to scale {want}");
            unscaled = q;
        }
        return new JsonObject { ["type"] = t, ["unscaled"] = unscaled.ToString(), ["scale"] = want };
    }

    // ---------------------------------------------------------------- formats

    static string TypeOf(JsonElement value) => value.TryGetProperty("type", out JsonElement t) ? t.GetString() ?? "" : "";

    static byte[] BinOf(JsonElement value, string what)
    {
        Check(TypeOf(value) == "bin", "invalid.tuple-type", $"{what}: expected a bin, got {TypeOf(value)}");
        return Fields.Hex(value, "hex");
    }

    /// <summary>The bin that must follow the first MessagePack value of a collection or compute argument, alone.</summary>
    static byte[] OneBinAfter(JsonElement outer, string what)
    {
        Check(outer.GetArrayLength() == 2, "invalid.tuple-type", $"{what}: expected one bin after the first value, got {outer.GetArrayLength() - 1} values");
        return BinOf(outer[1], what);
    }

    /// <summary>Spec 6.3: element count n, then the tuple of type id, count, items.</summary>
    static void ReadCollection(BigInteger n, JsonElement outer, string era, JsonArray output)
    {
        Check(n >= 2, "invalid.tuple-type", $"collection element count {n} is below 2");
        Check(outer.GetArrayLength() > 1, "malformed.truncated", "collection: the input ends where the bin belongs");
        long elements = n < int.MaxValue ? (long)n : long.MaxValue;   // ReadTuple: malformed.truncated
        byte[][] parts = ReadTuple(OneBinAfter(outer, "collection"), elements, era).Parts;
        long typeId = long.Parse(DecodeElement("INT32", parts[0])["value"]!.GetValue<string>());
        long count = long.Parse(DecodeElement("INT32", parts[1])["value"]!.GetValue<string>());
        Check(TypeNames.TryGetValue((int)typeId, out string? t), "invalid.tuple-type", $"collection type id {typeId} is not a 3.0 value type");
        Check(count == elements - 2, "invalid.tuple-type", $"collection count {count} with {elements} elements (count + 2 expected)");
        foreach (byte[] item in parts.Skip(2))
        {
            Check(item.Length > 0, "invalid.tuple-length", "a NULL collection item");
            output.Add((JsonNode)DecodeElement(t!, item, era));
        }
    }

    const int ComputeNative = 0, ComputeMarshalled = 2;   // ComputeJobDataType ids the corpus models

    /// <summary>Spec 6.4: kind, then one bin holding a triple (NATIVE) or the marshaller's bytes.</summary>
    static JsonObject ReadComputeArg(BigInteger kind, JsonElement outer, string era)
    {
        Check(kind == ComputeNative || kind == ComputeMarshalled, "invalid.tuple-type", $"compute argument kind {kind}");
        Check(outer.GetArrayLength() > 1, "malformed.truncated", "compute argument: the input ends where the bin belongs");
        byte[] data = OneBinAfter(outer, "compute argument");
        return kind == ComputeMarshalled
            ? new JsonObject { ["type"] = "MARSHALLED", ["hex"] = Convert.ToHexString(data).ToLowerInvariant() }
            : ReadTriple(ReadTuple(data, 3, era).Parts, 0);
    }

    static byte[][] CollectionParts(JsonElement[] items)
    {
        string t = Fields.Text(items[0], "type");
        foreach (JsonElement item in items)
        {
            Check(Fields.Text(item, "type") != "NULL", "unrepresentable", "a NULL collection item");
            Check(Fields.Text(item, "type") == t, "unrepresentable", $"collection items of types {t} and {Fields.Text(item, "type")}");
        }
        return [EncodeInt("INT32", TypeIds[t]), EncodeInt("INT32", items.Length), .. items.Select(v => EncodeElement(v))];
    }

    /// <summary>Batched arguments (spec BT-BATCH): nil, or row length N, row count, a bool (ignored), one bin of 3N
    /// elements per row; input that ends early is malformed.truncated, any other form invalid.tuple-type
    /// (BT-BATCH-FORM).</summary>
    static void ReadBatch(JsonElement outer, string era, JsonArray output)
    {
        int size = outer.GetArrayLength();
        if (size > 0 && TypeOf(outer[0]) == "nil")
        {
            Check(size == 1, "invalid.tuple-type", "batched arguments: nil followed by more values");
            return;
        }
        // input that ends where a header value or a row belongs is truncated (BT-BATCH-FORM): Java meets the end
        (string Want, string What)[] header = [("int", "row length"), ("int", "row count"), ("bool", "third value")];
        for (int i = 0; i < header.Length; i++)
        {
            Check(size > i, "malformed.truncated", $"batched arguments: the input ends where the {header[i].What} belongs");
            Check(TypeOf(outer[i]) == header[i].Want, "invalid.tuple-type", "batched arguments are a row length, a count and a bool, then the rows");
        }
        var n = BigInteger.Parse(Fields.Text(outer[0], "value"));
        var rows = BigInteger.Parse(Fields.Text(outer[1], "value"));
        Check(n.Sign >= 0 && rows.Sign >= 0 && (n.Sign > 0 || rows.IsZero), "invalid.tuple-type", $"batched arguments: row length {n}, count {rows}");
        Check(rows <= size - 3, "malformed.truncated", $"batched arguments: count {rows}, the input ends after {size - 3} rows");
        Check(rows == size - 3, "invalid.tuple-type", $"batched arguments: count {rows}, {size - 3} values follow");
        // 3N beyond any input length: ReadTuple answers malformed.truncated without allocating.
        long elements = n < int.MaxValue ? 3 * (long)n : long.MaxValue;
        for (int r = 3; r < size; r++)
        {
            byte[][] triples = ReadTuple(BinOf(outer[r], "batch row"), elements, era).Parts;
            var items = new JsonArray();
            for (long i = 0; i < elements; i += 3)
            {
                items.Add((JsonNode)ReadTriple(triples, i));
            }
            var row = Codec.Typed("array");
            row["items"] = items;
            output.Add((JsonNode)row);
        }
    }

    static void WriteBatch(ref MessagePackWriter writer, JsonElement[] rows)
    {
        if (rows.Length == 0)
        {
            writer.WriteNil();
            return;
        }
        var tuples = new List<byte[]>();
        int n = -1;
        foreach (JsonElement row in rows)
        {
            Check(row.ValueKind == JsonValueKind.Object && Fields.Text(row, "type") == "array" && row.TryGetProperty("items", out JsonElement items)
                && items.ValueKind == JsonValueKind.Array, "unrepresentable", "batched arguments: every row is a typed array");
            JsonElement[] args = [.. row.GetProperty("items").EnumerateArray()];
            n = n < 0 ? args.Length : n;
            Check(args.Length > 0 && args.Length == n, "unrepresentable", $"batched arguments: rows of {n} and {args.Length} arguments (one row length >= 1 is written)");
            tuples.Add(WriteTuple([.. args.SelectMany(Triple)]));
        }
        writer.Write(n);
        writer.Write(rows.Length);
        writer.Write(false);
        foreach (byte[] tuple in tuples)
        {
            writer.Write(tuple.AsSpan());
        }
    }

    public JsonArray Decode(string format, byte[] data, string era, string[] columns)
    {
        // Items go in as JsonNode: JsonArray.Add<T>(T) would look T up by reflection (not in the native build).
        var output = new JsonArray();
        if (format == "binary-tuple")
        {
            (byte[][] parts, HashSet<long> nulls) = ReadTuple(data, columns.Length, era);
            for (int i = 0; i < columns.Length; i++)
            {
                output.Add((JsonNode)DecodeColumn(columns[i], parts[i], era, nulls.Contains(i)));
            }
            return output;
        }
        using JsonDocument values = codec.DecodeDocument(data, "3.0");
        JsonElement outer = values.RootElement;
        // Input that ends where a value of the form belongs is truncated (spec BT-WRAPPER, BT-COLLECTION-COUNT,
        // BT-COMPUTE-ARG-BIN): Java meets the end of its buffer, as for any cut value.
        Check(outer.GetArrayLength() > 0, "malformed.truncated", $"{format}: no value");
        switch (format)
        {
            case "object":
                Check(outer.GetArrayLength() == 1, "invalid.tuple-type", $"an object is one MessagePack value, not {outer.GetArrayLength()}");
                output.Add((JsonNode)(TypeOf(outer[0]) == "nil" ? Codec.Typed("NULL") : ReadTriple(ReadTuple(BinOf(outer[0], "object"), 3, era).Parts, 0)));
                return output;
            case "object-array":
                Check(TypeOf(outer[0]) == "int", "invalid.tuple-type", "an object array starts with its count");
                var n = BigInteger.Parse(Fields.Text(outer[0], "value"));
                Check(n.Sign >= 0, "invalid.tuple-type", $"negative object count {n}");
                Check(n.IsZero || outer.GetArrayLength() > 1, "malformed.truncated", "object array: the input ends where the bin belongs");
                Check(outer.GetArrayLength() == (n.IsZero ? 1 : 2), "invalid.tuple-type", "an object array is a count and (N > 0) one bin");
                if (n.IsZero)
                {
                    return output;
                }
                // 3N beyond any input length: ReadTuple answers malformed.truncated without allocating.
                long elements = n < int.MaxValue ? 3 * (long)n : long.MaxValue;
                byte[][] triples = ReadTuple(BinOf(outer[1], "object array"), elements, era).Parts;
                for (long i = 0; i < elements; i += 3)
                {
                    output.Add((JsonNode)ReadTriple(triples, i));
                }
                return output;
            case "batched-arguments":
                ReadBatch(outer, era, output);
                return output;
            case "table-row":
                Check(outer.GetArrayLength() > 1 || TypeOf(outer[0]) != "bitmask", "malformed.truncated", "row: the input ends where the bin belongs");
                Check(outer.GetArrayLength() == 2 && TypeOf(outer[0]) == "bitmask", "invalid.tuple-type", "a row is a BITMASK and a bin");
                byte[][] row = ReadTuple(BinOf(outer[1], "row"), columns.Length, era).Parts;
                HashSet<long> noValue = [.. outer[0].GetProperty("bits").EnumerateArray().Select(bit => bit.GetInt64())];
                for (int i = 0; i < columns.Length; i++)
                {
                    output.Add((JsonNode)(noValue.Contains(i) ? Codec.Typed("NO_VALUE") : DecodeColumn(columns[i], row[i], era)));
                }
                return output;
            case "collection" or "compute-arg":
                if (TypeOf(outer[0]) == "nil")
                {
                    Check(outer.GetArrayLength() == 1, "invalid.tuple-type", $"{format}: nil followed by more values");
                    if (format == "compute-arg")
                    {
                        output.Add((JsonNode)Codec.Typed("NULL"));
                    }
                    return output;
                }
                Check(TypeOf(outer[0]) == "int", "invalid.tuple-type", $"{format}: the first value is not an int");
                var first = BigInteger.Parse(Fields.Text(outer[0], "value"));
                if (format == "collection")
                {
                    ReadCollection(first, outer, era, output);
                }
                else
                {
                    output.Add((JsonNode)ReadComputeArg(first, outer, era));
                }
                return output;
            default:
                throw new NotImplementedException($"format '{format}'");
        }
    }

    public byte[] Encode(string format, JsonElement values, string era)
    {
        JsonElement[] items = [.. values.EnumerateArray()];
        if (format == "binary-tuple")
        {
            int[]? nulls = era == "beta1" ? [.. Enumerable.Range(0, items.Length).Where(i => Fields.Text(items[i], "type") == "NULL")] : null;
            return WriteTuple([.. items.Select(v => EncodeElement(v, era))], nulls);
        }
        var output = new ArrayBufferWriter<byte>();
        var writer = new MessagePackWriter(output);
        switch (format)
        {
            case "object":
                if (Fields.Text(items[0], "type") == "NULL")
                {
                    writer.WriteNil();
                }
                else
                {
                    writer.Write(WriteTuple(Triple(items[0])).AsSpan());
                }
                break;
            case "object-array":
                writer.Write(items.Length);
                if (items.Length > 0)
                {
                    writer.Write(WriteTuple([.. items.SelectMany(Triple)]).AsSpan());
                }
                break;
            case "batched-arguments":
                WriteBatch(ref writer, items);
                break;
            case "table-row":
                var noValue = Enumerable.Range(0, items.Length).Where(i => Fields.Text(items[i], "type") == "NO_VALUE").Select(i => (long)i);
                (sbyte code, byte[] mask) = ignite.Bitmask(era, noValue);
                Codec.WriteExt(ref writer, code, mask);
                writer.Write(WriteTuple([.. items.Select(v => EncodeElement(v))]).AsSpan());
                break;
            case "collection":
                if (items.Length == 0)
                {
                    writer.WriteNil();
                    break;
                }
                byte[][] parts = CollectionParts(items);
                writer.Write(items.Length + 2);
                writer.Write(WriteTuple(parts).AsSpan());
                break;
            case "compute-arg":
                string kind = Fields.Text(items[0], "type");
                if (kind == "NULL")
                {
                    writer.WriteNil();
                    break;
                }
                bool marshalled = kind == "MARSHALLED";
                byte[] payload = marshalled ? Convert.FromHexString(Fields.Text(items[0], "hex")) : WriteTuple(Triple(items[0]));
                writer.Write(marshalled ? ComputeMarshalled : ComputeNative);
                writer.Write(payload.AsSpan());
                break;
            default:
                throw new NotImplementedException($"format '{format}'");
        }
        writer.Flush();
        return output.WrittenSpan.ToArray();
    }
}
