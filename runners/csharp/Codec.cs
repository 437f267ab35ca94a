using System;
using System.Buffers;
using System.Globalization;
using System.IO;
using System.Numerics;
using System.Runtime.InteropServices;
using System.Text;
using System.Text.Json;
using System.Text.Json.Nodes;
using MessagePack;

namespace IgniteRunner;

/// <summary>
/// Typed value notation (schema/value.schema.json) &lt;-&gt; MessagePack, on MessagePack-CSharp's low-level
/// <see cref="MessagePackWriter"/> / <see cref="MessagePackReader"/> only (no serializer, no formatters).
/// Writes are type-directed (the notation says the family and width); reads go code by code, so nothing recurses
/// in the library, a declared length is checked against the input before anything is read or allocated for it,
/// and ext -1 stays a raw ext (the library's timestamp reader is never called).
/// </summary>
sealed class Codec(IgniteExt ignite)
{
    /// <summary>Deepest array/map nesting accepted (the suite's MP-DEPTH-LIMIT value; 64 must work).</summary>
    public const int MaxDepth = 512;

    /// <summary>Strict UTF-8 both ways: the library's own string paths replace bad input with U+FFFD.</summary>
    static readonly UTF8Encoding StrictUtf8 = new(encoderShouldEmitUTF8Identifier: false, throwOnInvalidBytes: true);

    // ---------------------------------------------------------------- decode

    static readonly JsonEncodedText TypeKey = JsonEncodedText.Encode("type"), ValueKey = JsonEncodedText.Encode("value"),
        BitsKey = JsonEncodedText.Encode("bits"), HexKey = JsonEncodedText.Encode("hex"), ItemsKey = JsonEncodedText.Encode("items"),
        EntriesKey = JsonEncodedText.Encode("entries"), CodeKey = JsonEncodedText.Encode("code");

    static readonly JsonEncodedText Nil = JsonEncodedText.Encode("nil"), Bool = JsonEncodedText.Encode("bool"),
        Int = JsonEncodedText.Encode("int"), Float32 = JsonEncodedText.Encode("float32"), Float64 = JsonEncodedText.Encode("float64"),
        Str = JsonEncodedText.Encode("str"), Bin = JsonEncodedText.Encode("bin"), ArrayType = JsonEncodedText.Encode("array"),
        MapType = JsonEncodedText.Encode("map"), Ext = JsonEncodedText.Encode("ext");

    /// <summary>
    /// All top-level values of <paramref name="input"/>, in order, read in <paramref name="era"/>, written as one
    /// JSON array of typed values straight to <paramref name="output"/> (no tree of nodes). On an error the output
    /// holds a partial array: the caller discards it.
    /// </summary>
    public void Decode(ReadOnlyMemory<byte> input, string era, Utf8JsonWriter output)
    {
        var reader = new MessagePackReader(input);
        output.WriteStartArray();
        try
        {
            while (!reader.End)
            {
                Value(ref reader, input, era, 0, output);
            }
        }
        catch (EndOfStreamException)   // the library's "not enough bytes" for any header or payload
        {
            throw WireError.Truncated($"input ends inside a value (at byte {reader.Consumed} of {input.Length})");
        }
        output.WriteEndArray();
    }

    /// <summary>The values as a read-only document, for the Binary Tuple formats, which look at the MessagePack values around a tuple.</summary>
    public JsonDocument DecodeDocument(byte[] input, string era)
    {
        scratch.ResetWrittenCount();
        using (var writer = new Utf8JsonWriter(scratch))
        {
            Decode(input, era, writer);
        }
        return JsonDocument.Parse(scratch.WrittenMemory);   // reads the buffer: disposed before the next call
    }

    /// <summary>The values as nodes (bench/csharp's typed read).</summary>
    public JsonArray Decode(byte[] input, string era)
    {
        using JsonDocument values = DecodeDocument(input, era);
        return JsonArray.Create(values.RootElement.Clone())!;
    }

    // The text of the values the Binary Tuple formats read back as nodes: one buffer for all requests.
    readonly ArrayBufferWriter<byte> scratch = new(1 << 12);

    /// <summary>One value; <paramref name="depth"/> is the number of enclosing arrays and maps.</summary>
    void Value(ref MessagePackReader reader, ReadOnlyMemory<byte> input, string era, int depth, Utf8JsonWriter output)
    {
        switch (reader.NextMessagePackType)
        {
            case MessagePackType.Nil:
                reader.ReadNil();
                Typed(output, Nil);
                return;
            case MessagePackType.Boolean:
                bool flag = reader.ReadBoolean();
                output.WriteStartObject();
                output.WriteString(TypeKey, Bool);
                output.WriteBoolean(ValueKey, flag);
                output.WriteEndObject();
                return;
            case MessagePackType.Integer:
                // ReadInt64 throws OverflowException above int64 max: uint64 goes through ReadUInt64, exact.
                Span<byte> digits = stackalloc byte[20];
                int length;
                if (reader.NextCode == MessagePackCode.UInt64)
                {
                    reader.ReadUInt64().TryFormat(digits, out length, default, CultureInfo.InvariantCulture);
                }
                else
                {
                    reader.ReadInt64().TryFormat(digits, out length, default, CultureInfo.InvariantCulture);
                }
                Typed(output, Int, ValueKey, digits[..length]);
                return;
            case MessagePackType.Float:
                // ReadSingle on ca keeps the float's bits (NaN payloads too); only ReadDouble would widen it.
                Span<byte> bits = stackalloc byte[16];
                if (reader.NextCode == MessagePackCode.Float32)
                {
                    BitConverter.SingleToInt32Bits(reader.ReadSingle()).TryFormat(bits, out length, "x8", CultureInfo.InvariantCulture);
                    Typed(output, Float32, BitsKey, bits[..length]);
                }
                else
                {
                    BitConverter.DoubleToInt64Bits(reader.ReadDouble()).TryFormat(bits, out length, "x16", CultureInfo.InvariantCulture);
                    Typed(output, Float64, BitsKey, bits[..length]);
                }
                return;
            case MessagePackType.String:
                CheckPayload(ref reader, input, "str");
                ReadOnlySequence<byte> utf8 = reader.ReadStringSequence()!.Value;
                ReadOnlySpan<byte> text = utf8.IsSingleSegment ? utf8.FirstSpan : utf8.ToArray();
                if (!System.Text.Unicode.Utf8.IsValid(text))
                {
                    Utf8(text);   // throws invalid.utf8 with the decoder's diagnosis
                }
                Typed(output, Str, ValueKey, text);
                return;
            case MessagePackType.Binary:
                CheckPayload(ref reader, input, "bin");
                ReadOnlySequence<byte> bytes = reader.ReadBytes()!.Value;
                output.WriteStartObject();
                output.WriteString(TypeKey, Bin);
                Fields.WriteHex(output, HexKey, bytes.IsSingleSegment ? bytes.FirstSpan : bytes.ToArray());
                output.WriteEndObject();
                return;
            case MessagePackType.Array:
            {
                int count = ContainerHeader(ref reader, input, depth, isMap: false);
                output.WriteStartObject();
                output.WriteString(TypeKey, ArrayType);
                output.WriteStartArray(ItemsKey);
                for (int i = 0; i < count; i++)
                {
                    Value(ref reader, input, era, depth + 1, output);
                }
                output.WriteEndArray();
                output.WriteEndObject();
                return;
            }
            case MessagePackType.Map:
            {
                int count = ContainerHeader(ref reader, input, depth, isMap: true);
                output.WriteStartObject();
                output.WriteString(TypeKey, MapType);
                output.WriteStartArray(EntriesKey);
                for (int i = 0; i < count; i++)
                {
                    // Wire order, duplicates and non-str keys kept: never built into a dictionary.
                    output.WriteStartArray();
                    Value(ref reader, input, era, depth + 1, output);
                    Value(ref reader, input, era, depth + 1, output);
                    output.WriteEndArray();
                }
                output.WriteEndArray();
                output.WriteEndObject();
                return;
            }
            case MessagePackType.Extension:
            {
                ExtensionHeader header = reader.ReadExtensionFormatHeader();   // header only: no timestamp reading
                Need(ref reader, input, header.Length, 1, "ext payload");
                byte[] payload = reader.ReadRaw(header.Length).ToArray();
                if (ignite.Assigns(era, header.TypeCode))
                {
                    ignite.Decode(era, header.TypeCode, payload).WriteTo(output);
                    return;
                }
                output.WriteStartObject();
                output.WriteString(TypeKey, Ext);
                output.WriteNumber(CodeKey, header.TypeCode);
                Fields.WriteHex(output, HexKey, payload);
                output.WriteEndObject();
                return;
            }
            default:   // MessagePackType.Unknown: only c1 (never used) is left
                throw new WireError("malformed.reserved", $"reserved format byte {reader.NextCode:x2} where a value starts");
        }
    }

    static void Typed(Utf8JsonWriter output, JsonEncodedText type)
    {
        output.WriteStartObject();
        output.WriteString(TypeKey, type);
        output.WriteEndObject();
    }

    static void Typed(Utf8JsonWriter output, JsonEncodedText type, JsonEncodedText field, ReadOnlySpan<byte> utf8)
    {
        output.WriteStartObject();
        output.WriteString(TypeKey, type);
        output.WriteString(field, utf8);
        output.WriteEndObject();
    }

    static long Remaining(ref MessagePackReader reader, ReadOnlyMemory<byte> input) => input.Length - reader.Consumed;

    /// <summary>An array or map count, refused when it would nest too deep or cannot fit in the bytes left.</summary>
    static int ContainerHeader(ref MessagePackReader reader, ReadOnlyMemory<byte> input, int depth, bool isMap)
    {
        WireError.Check(depth < MaxDepth, "limit.depth", $"nesting deeper than {MaxDepth}");
        // TryRead*Header, not Read*Header: the latter also reserves one byte per element summed over every enclosing
        // container (ReserveMinimumChildBytes), so a deep count short of input was reported before an earlier defect
        // inside the values (spec 7: the first defect in wire order); Need checks this container's count.
        int count;
        if (!(isMap ? reader.TryReadMapHeader(out count) : reader.TryReadArrayHeader(out count)))
        {
            throw WireError.Truncated($"{(isMap ? "map" : "array")} header cut short");
        }
        // A 32-bit count of 2^31 or more comes back negative (unchecked): more elements than any input can hold.
        WireError.Check(count >= 0, "malformed.truncated", $"{(isMap ? "map" : "array")} declares {(uint)count} elements");
        Need(ref reader, input, count, isMap ? 2 : 1, isMap ? "map" : "array");   // an element takes >= 1 byte, an entry >= 2
        return count;
    }

    /// <summary>Refuses a declared size before anything is iterated or allocated for it.</summary>
    static void Need(ref MessagePackReader reader, ReadOnlyMemory<byte> input, long count, long bytesEach, string what)
    {
        long left = Remaining(ref reader, input);
        if (count > left / bytesEach)
        {
            throw WireError.Truncated($"{what} declares {count} but only {left} bytes remain");
        }
    }

    /// <summary>
    /// The str/bin header's declared length against the bytes after it. The library has no public header-only
    /// reader for these, and for a 32-bit length above 2^31-1 it throws ArgumentOutOfRangeException, not
    /// EndOfStreamException; read the header bytes at the cursor instead.
    /// </summary>
    static void CheckPayload(ref MessagePackReader reader, ReadOnlyMemory<byte> memory, string what)
    {
        ReadOnlySpan<byte> input = memory.Span;
        int at = (int)reader.Consumed;
        byte code = input[at];
        int width = code switch
        {
            MessagePackCode.Str8 or MessagePackCode.Bin8 => 1,
            MessagePackCode.Str16 or MessagePackCode.Bin16 => 2,
            MessagePackCode.Str32 or MessagePackCode.Bin32 => 4,
            _ => 0,   // fixstr: the length is in the code byte
        };
        long left = input.Length - at - 1 - width;
        if (left < 0)
        {
            throw WireError.Truncated($"{what} header cut short");
        }
        long length = width == 0 ? code & 0x1f : 0;
        for (int i = 1; i <= width; i++)
        {
            length = length << 8 | input[at + i];
        }
        if (length > left)
        {
            throw WireError.Truncated($"{what} declares {length} bytes but only {left} remain");
        }
    }

    /// <summary>Strict UTF-8: overlong forms, surrogates, code points above U+10FFFF, bad continuations rejected.</summary>
    public static string Utf8(ReadOnlySpan<byte> bytes)
    {
        try
        {
            return StrictUtf8.GetString(bytes);
        }
        catch (DecoderFallbackException e)
        {
            throw new WireError("invalid.utf8", $"str payload is not UTF-8: {e.Message}");
        }
    }

    public static JsonObject Typed(string type) => new() { ["type"] = type };

    // ---------------------------------------------------------------- encode

    /// <summary>The values written one after another to <paramref name="output"/>.</summary>
    public void Encode(JsonElement values, IBufferWriter<byte> output)
    {
        var writer = new MessagePackWriter(output);
        foreach (JsonElement value in values.EnumerateArray())
        {
            Write(ref writer, value);
        }
        writer.Flush();
    }

    /// <summary>The values written one after another.</summary>
    public byte[] Encode(JsonElement values)
    {
        var output = new ArrayBufferWriter<byte>();
        Encode(values, output);
        return output.WrittenSpan.ToArray();
    }

    public void Write(ref MessagePackWriter writer, JsonElement value)
    {
        string type = Fields.Text(value, "type");
        switch (type)
        {
            case "nil":
                writer.WriteNil();
                break;
            case "bool":
                writer.Write(Fields.Bool(value, "value"));
                break;
            case "int":
                WriteInt(ref writer, Fields.Text(value, "value"));
                break;
            case "float32":   // ca: Write(float), never Write(double)
                writer.Write(BitConverter.Int32BitsToSingle(int.Parse(Fields.Text(value, "bits"), NumberStyles.AllowHexSpecifier)));
                break;
            case "float64":
                writer.Write(BitConverter.Int64BitsToDouble(long.Parse(Fields.Text(value, "bits"), NumberStyles.AllowHexSpecifier)));
                break;
            case "str":   // WriteString(utf8) writes a str family header sized from the bytes: fixstr/d9/da/db
                writer.WriteString(StrictUtf8Field(value, "value"));
                break;
            case "bin":   // Write(ReadOnlySpan<byte>) writes the bin family: c4/c5/c6
                writer.Write(Fields.HexView(value, "hex").Span);
                break;
            case "array":
                JsonElement items = Fields.Array(value, "items");
                writer.WriteArrayHeader(items.GetArrayLength());
                foreach (JsonElement item in items.EnumerateArray())
                {
                    Write(ref writer, item);
                }
                break;
            case "map":
                JsonElement entries = Fields.Array(value, "entries");
                writer.WriteMapHeader(entries.GetArrayLength());
                foreach (JsonElement entry in entries.EnumerateArray())
                {
                    if (entry.ValueKind != JsonValueKind.Array || entry.GetArrayLength() != 2)
                    {
                        throw new ArgumentException("map entry is not a [key, value] pair");
                    }
                    Write(ref writer, entry[0]);
                    Write(ref writer, entry[1]);
                }
                break;
            case "ext":
                BigInteger code = Fields.Integer(value, "code");
                WireError.Check(code >= sbyte.MinValue && code <= sbyte.MaxValue, "unrepresentable", $"ext code {code} outside -128..127");
                WriteExt(ref writer, (sbyte)code, Fields.HexView(value, "hex").Span);
                break;
            default:   // an Ignite type; IgniteExt refuses what the value's era does not assign
                (sbyte extCode, byte[] payload) = ignite.Encode(value);
                WriteExt(ref writer, extCode, payload);
                break;
        }
    }

    /// <summary>Write(long) and Write(ulong) pick the smallest form (uint family for non-negative values).</summary>
    static void WriteInt(ref MessagePackWriter writer, string digits)
    {
        if (long.TryParse(digits, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out long signed))
        {
            writer.Write(signed);
        }
        else if (ulong.TryParse(digits, NumberStyles.None, CultureInfo.InvariantCulture, out ulong unsigned))
        {
            writer.Write(unsigned);
        }
        else if (BigInteger.TryParse(digits, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out BigInteger n))
        {
            throw WireError.Unrepresentable($"integer {n} outside -2^63 .. 2^64-1");
        }
        else
        {
            throw new ArgumentException($"int value '{digits}' is not a decimal integer");
        }
    }

    /// <summary>WriteExtensionFormatHeader picks fixext 1/2/4/8/16 for those lengths, else ext8 (also for 0), ext16, ext32.</summary>
    public static void WriteExt(ref MessagePackWriter writer, sbyte code, ReadOnlySpan<byte> payload)
    {
        writer.WriteExtensionFormatHeader(new ExtensionHeader(code, payload.Length));
        writer.WriteRaw(payload);
    }

    /// <summary>
    /// A str field's UTF-8: the request's own bytes when the token has no escapes and is valid UTF-8 (no string of
    /// it), else decoded and re-encoded strictly.
    /// </summary>
    static ReadOnlySpan<byte> StrictUtf8Field(JsonElement value, string name)
    {
        if (value.TryGetProperty(name, out JsonElement field) && field.ValueKind == JsonValueKind.String)
        {
            ReadOnlySpan<byte> raw = JsonMarshal.GetRawUtf8Value(field)[1..^1];   // the raw token, without its quotes
            if (!raw.Contains((byte)'\\') && System.Text.Unicode.Utf8.IsValid(raw))
            {
                return raw;
            }
        }
        return StrictUtf8Bytes(Fields.Text(value, name));
    }

    /// <summary>The library's Write(string) would turn a lone surrogate into U+FFFD (ef bf bd); refuse it instead.</summary>
    public static byte[] StrictUtf8Bytes(string text)
    {
        try
        {
            return StrictUtf8.GetBytes(text);
        }
        catch (EncoderFallbackException)
        {
            throw WireError.Unrepresentable("str value has an unpaired surrogate");
        }
    }
}
