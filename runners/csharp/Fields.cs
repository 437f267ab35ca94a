using System;
using System.Buffers;
using System.Runtime.InteropServices;
using System.Globalization;
using System.Numerics;
using System.Text.Json;

namespace IgniteRunner;

/// <summary>Typed access to request fields; a missing or mistyped field is a bad request (ArgumentException).</summary>
static class Fields
{
    static JsonElement Field(JsonElement obj, string name) =>
        obj.TryGetProperty(name, out JsonElement field) ? field : throw new ArgumentException($"missing field '{name}'");

    public static string Text(JsonElement obj, string name)
    {
        JsonElement field = Field(obj, name);
        return field.ValueKind == JsonValueKind.String ? field.GetString()! : throw new ArgumentException($"field '{name}' is not a string");
    }

    public static bool Bool(JsonElement obj, string name) => Field(obj, name).ValueKind switch
    {
        JsonValueKind.True => true,
        JsonValueKind.False => false,
        _ => throw new ArgumentException($"field '{name}' is not a boolean"),
    };

    public static JsonElement Array(JsonElement obj, string name)
    {
        JsonElement field = Field(obj, name);
        return field.ValueKind == JsonValueKind.Array ? field : throw new ArgumentException($"field '{name}' is not an array");
    }

    /// <summary>A JSON integer of any size (range checks belong to the caller).</summary>
    public static BigInteger Integer(JsonElement obj, string name)
    {
        JsonElement field = Field(obj, name);
        if (field.ValueKind == JsonValueKind.Number)
        {
            if (field.TryGetInt64(out long small))
            {
                return small;
            }
            if (BigInteger.TryParse(field.GetRawText(), NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out BigInteger big))
            {
                return big;
            }
        }
        throw new ArgumentException($"field '{name}' is not an integer");
    }

    /// <summary>A JSON integer that the caller range-checks as an int (anything outside int64 is refused here).</summary>
    public static long Long(JsonElement obj, string name, string errorClass)
    {
        BigInteger n = Integer(obj, name);
        WireError.Check(n >= long.MinValue && n <= long.MaxValue, errorClass, $"{name} {n} outside int64");
        return (long)n;
    }

    /// <summary>An integer written as decimal text (the notation's "int", "seconds", "unscaled" ...).</summary>
    public static BigInteger Digits(JsonElement obj, string name)
    {
        string text = Text(obj, name);
        return BigInteger.TryParse(text, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out BigInteger n)
            ? n : throw new ArgumentException($"field '{name}' is not a decimal integer: '{text}'");
    }

    public static byte[] Hex(JsonElement obj, string name) => Convert.FromHexString(Text(obj, name));

    static byte[] hexIn = new byte[256];

    /// <summary>
    /// A hex string field's bytes, decoded from the request's UTF-8 into a reused buffer (no string of the digits):
    /// valid until the next call. A field with escapes or bad digits goes through <see cref="Hex(JsonElement, string)"/>
    /// and its diagnosis.
    /// </summary>
    public static ReadOnlyMemory<byte> HexView(JsonElement obj, string name)
    {
        if (obj.TryGetProperty(name, out JsonElement field) && field.ValueKind == JsonValueKind.String)
        {
            ReadOnlySpan<byte> digits = JsonMarshal.GetRawUtf8Value(field)[1..^1];   // the raw token, without its quotes
            if (digits.Length % 2 == 0)
            {
                if (hexIn.Length < digits.Length / 2)
                {
                    hexIn = new byte[Math.Max(digits.Length / 2, 2 * hexIn.Length)];
                }
                if (Convert.FromHexString(digits, hexIn, out _, out int written) == OperationStatus.Done)
                {
                    return hexIn.AsMemory(0, written);
                }
            }
        }
        return Hex(obj, name);
    }

    public static string Hex(ReadOnlySpan<byte> bytes) => Convert.ToHexStringLower(bytes);

    static byte[] hexScratch = new byte[256];   // the runner answers one request at a time, on one thread

    /// <summary>A lowercase hex string field, formatted as UTF-8 in a reused buffer (no string of the digits).</summary>
    public static void WriteHex(Utf8JsonWriter output, JsonEncodedText name, ReadOnlySpan<byte> bytes)
    {
        if (hexScratch.Length < 2 * bytes.Length)
        {
            hexScratch = new byte[Math.Max(2 * bytes.Length, 2 * hexScratch.Length)];
        }
        Convert.TryToHexStringLower(bytes, hexScratch, out int written);
        output.WriteString(name, hexScratch.AsSpan(0, written));
    }
}
