using System;
using System.Globalization;
using System.Numerics;
using System.Text.Json.Nodes;
using Apache.Ignite;
using Apache.Ignite.Sql;
using NodaTime;

namespace IgniteDotnetAdapter;

/// <summary>A column the caller did not set (table-row NO_VALUE).</summary>
sealed class NoValue
{
    public static readonly NoValue Instance = new();
}

/// <summary>The bytes of a user marshaller (compute-arg MARSHALLED, kind 2).</summary>
sealed record Marshalled(byte[] Bytes);

/// <summary>The adapter cannot hand this request to the client, or cannot show the client's answer: answered 'skipped'.</summary>
sealed class SkipException(string reason) : Exception(reason);

/// <summary>
/// Typed values (schema/value.schema.json, spec.md 6.2.1) to and from the .NET types the client's API takes and
/// returns: sbyte, short, int, long, float, double, bool, string, byte[], Guid, Apache.Ignite.BigDecimal and NodaTime's
/// LocalDate, LocalTime, LocalDateTime, Instant, Period, Duration. No byte of the wire is read or written here.
/// </summary>
static class Values
{
    static readonly BigInteger NanosPerSecond = 1_000_000_000;

    /// <summary>The ColumnType of a registry type name (BYTE_ARRAY -> ByteArray, DATETIME -> Datetime).</summary>
    public static ColumnType ColumnTypeOf(string name) =>
        name is "NO_VALUE" or "MARSHALLED" or "NUMBER" || !Enum.TryParse(name.Replace("_", "", StringComparison.Ordinal), ignoreCase: true, out ColumnType t)
            ? throw new SkipException($"column type {name} has no Apache.Ignite.Sql.ColumnType")
            : t;

    /// <summary>The .NET value the client takes for a typed value. NodaTime's own checks run here (its exceptions are classified).</summary>
    public static object? ToClr(JsonNode? node)
    {
        var v = node as JsonObject ?? throw new SkipException("a value is not a JSON object");
        string type = Text(v, "type");
        switch (type)
        {
            case "NULL": return null;
            case "NO_VALUE": return NoValue.Instance;
            case "MARSHALLED": return new Marshalled(Convert.FromHexString(Text(v, "hex")));
            case "BOOLEAN": return v["value"]!.GetValue<bool>();
            case "INT8": return Integer(v, "value", sbyte.MinValue, sbyte.MaxValue, x => (sbyte)x, "sbyte");
            case "INT16": return Integer(v, "value", short.MinValue, short.MaxValue, x => (short)x, "short");
            case "INT32": return Integer(v, "value", int.MinValue, int.MaxValue, x => (int)x, "int");
            case "INT64": return Integer(v, "value", long.MinValue, long.MaxValue, x => (long)x, "long");
            case "FLOAT": return BitConverter.Int32BitsToSingle((int)uint.Parse(Text(v, "bits"), NumberStyles.HexNumber, CultureInfo.InvariantCulture));
            case "DOUBLE": return BitConverter.Int64BitsToDouble((long)ulong.Parse(Text(v, "bits"), NumberStyles.HexNumber, CultureInfo.InvariantCulture));
            case "DECIMAL":
            {
                int scale = Int(v, "scale");
                if (scale is < short.MinValue or > short.MaxValue)
                {
                    throw new SkipException($"scale {scale} does not fit Apache.Ignite.BigDecimal's short scale");
                }
                return new BigDecimal(BigInteger.Parse(Text(v, "unscaled"), CultureInfo.InvariantCulture), (short)scale);
            }
            case "DATE": return new LocalDate(Int(v, "year"), Int(v, "month"), Int(v, "day"));
            case "TIME": return Time(v);
            case "DATETIME": return new LocalDate(Int(v, "year"), Int(v, "month"), Int(v, "day")).At(Time(v));
            case "TIMESTAMP":
            {
                (long seconds, int nano) = SecondsNano(v);
                return Instant.FromUnixTimeSeconds(seconds).PlusNanoseconds(nano);
            }
            case "DURATION":
            {
                (long seconds, int nano) = SecondsNano(v);
                return Duration.FromSeconds(seconds) + Duration.FromNanoseconds(nano);
            }
            case "UUID": return Guid.ParseExact(Text(v, "value"), "D");
            case "STRING": return Text(v, "value");
            case "BYTE_ARRAY": return Convert.FromHexString(Text(v, "hex"));
            case "PERIOD": return new PeriodBuilder { Years = Int(v, "years"), Months = Int(v, "months"), Days = Int(v, "days") }.Build();
            default: throw new SkipException($"type {type} has no .NET value in the client's API");
        }
    }

    /// <summary>The typed value of what the client returned.</summary>
    public static JsonObject FromClr(object? value) => value switch
    {
        null => new JsonObject { ["type"] = "NULL" },
        Marshalled m => new JsonObject { ["type"] = "MARSHALLED", ["hex"] = Hex(m.Bytes) },
        bool b => new JsonObject { ["type"] = "BOOLEAN", ["value"] = b },
        sbyte i => Int("INT8", i),
        short i => Int("INT16", i),
        int i => Int("INT32", i),
        long i => Int("INT64", i),
        float f => new JsonObject { ["type"] = "FLOAT", ["bits"] = BitConverter.SingleToUInt32Bits(f).ToString("x8", CultureInfo.InvariantCulture) },
        double d => new JsonObject { ["type"] = "DOUBLE", ["bits"] = BitConverter.DoubleToUInt64Bits(d).ToString("x16", CultureInfo.InvariantCulture) },
        BigDecimal d => new JsonObject { ["type"] = "DECIMAL", ["unscaled"] = d.UnscaledValue.ToString(CultureInfo.InvariantCulture), ["scale"] = (int)d.Scale },
        LocalDate d => new JsonObject { ["type"] = "DATE", ["year"] = d.Year, ["month"] = d.Month, ["day"] = d.Day },
        LocalTime t => Time(new JsonObject { ["type"] = "TIME" }, t),
        LocalDateTime dt => Time(new JsonObject { ["type"] = "DATETIME", ["year"] = dt.Year, ["month"] = dt.Month, ["day"] = dt.Day }, dt.TimeOfDay),
        Instant t => SecondsNano("TIMESTAMP", (t - NodaConstants.UnixEpoch).ToBigIntegerNanoseconds()),
        Duration d => SecondsNano("DURATION", d.ToBigIntegerNanoseconds()),
        Guid g => new JsonObject { ["type"] = "UUID", ["value"] = g.ToString("D") },
        string s => new JsonObject { ["type"] = "STRING", ["value"] = s },
        byte[] bytes => new JsonObject { ["type"] = "BYTE_ARRAY", ["hex"] = Hex(bytes) },
        Period p => new JsonObject { ["type"] = "PERIOD", ["years"] = p.Years, ["months"] = p.Months, ["days"] = p.Days },
        _ => throw new SkipException($"the client returned a {value.GetType().FullName}, which no typed value models"),
    };

    public static string Hex(ReadOnlySpan<byte> bytes) => Convert.ToHexStringLower(bytes);

    public static string Text(JsonObject o, string key) =>
        o[key] is JsonValue v && v.TryGetValue(out string? s) ? s : throw new SkipException($"member '{key}' is not a string");

    static int Int(JsonObject o, string key) =>
        o[key] is JsonValue v && v.TryGetValue(out int i) ? i : throw new SkipException($"member '{key}' is not an int32");

    static object Integer(JsonObject v, string key, long min, long max, Func<long, object> cast, string clrType)
    {
        BigInteger x = BigInteger.Parse(Text(v, key), CultureInfo.InvariantCulture);
        return x < min || x > max ? throw new SkipException($"{x} does not fit {clrType}, the type the client's API takes") : cast((long)x);
    }

    static LocalTime Time(JsonObject v) => LocalTime.FromHourMinuteSecondNanosecond(Int(v, "hour"), Int(v, "minute"), Int(v, "second"), Int(v, "nano"));

    static (long Seconds, int Nano) SecondsNano(JsonObject v)
    {
        BigInteger seconds = BigInteger.Parse(Text(v, "seconds"), CultureInfo.InvariantCulture);
        int nano = Int(v, "nano");
        if (seconds < long.MinValue || seconds > long.MaxValue)
        {
            throw new SkipException($"seconds {seconds} do not fit a long");
        }
        if (nano is < 0 or > 999_999_999)
        {
            // NodaTime has no (seconds, nanos) constructor: the adapter would have to add them, normalising.
            throw new SkipException($"nanos {nano} outside 0..999999999: NodaTime takes no (seconds, nanos) pair to refuse");
        }
        return ((long)seconds, nano);
    }

    static JsonObject Int(string type, long value) => new() { ["type"] = type, ["value"] = value.ToString(CultureInfo.InvariantCulture) };

    static JsonObject Time(JsonObject o, LocalTime t)
    {
        o["hour"] = t.Hour;
        o["minute"] = t.Minute;
        o["second"] = t.Second;
        o["nano"] = t.NanosecondOfSecond;
        return o;
    }

    static JsonObject SecondsNano(string type, BigInteger nanos)
    {
        BigInteger seconds = BigInteger.DivRem(nanos, NanosPerSecond, out BigInteger rem);
        if (rem < 0)
        {
            seconds -= 1;
            rem += NanosPerSecond;
        }
        return new JsonObject { ["type"] = type, ["seconds"] = seconds.ToString(CultureInfo.InvariantCulture), ["nano"] = (int)rem };
    }
}
