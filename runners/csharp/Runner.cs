using System;
using System.Buffers;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Reflection;
using System.Runtime.InteropServices;
using System.Text;
using System.Text.Encodings.Web;
using System.Text.Json;
using System.Text.Json.Nodes;
using System.Text.RegularExpressions;
using System.Threading;
using MessagePack;

namespace IgniteRunner;

/// <summary>
/// Runner protocol v1 (schema/protocol.schema.json) over stdin/stdout: one JSON request per line in, one response
/// per line out; every request already read is answered, then the answers are flushed once, before a read that could
/// block. Logs go to stderr only. The runner never sees expected results. Argument: the path of
/// schema/registry.json (default relative to runners/csharp/).
/// </summary>
static partial class Runner
{
    const int Protocol = 1;
    /// <summary>
    /// Request JSON nesting accepted: a 512-deep typed value is about 1030 JSON levels; deeper requests still encode
    /// (encode has no depth limit of its own). Parsing is iterative; the codec recurses once per level on a thread
    /// whose stack is sized for this (StackBytes).
    /// </summary>
    const int MaxJsonDepth = 20_100;
    const int StackBytes = 256 << 20;

    static readonly JsonDocumentOptions ReadOptions = new() { MaxDepth = MaxJsonDepth };
    // Responses are protocol lines, not HTML: the relaxed encoder escapes only what JSON requires.
    static readonly JsonWriterOptions WriteOptions = new() { MaxDepth = MaxJsonDepth, Encoder = JavaScriptEncoder.UnsafeRelaxedJsonEscaping };

    [GeneratedRegex("\"id\"\\s*:\\s*(\\d+)")]
    private static partial Regex RequestId();

    public static int Main(string[] args)
    {
        int status = 1;
        var thread = new Thread(() => status = Serve(args.Length > 0 ? args[0] : "../../schema/registry.json"), StackBytes);
        thread.Start();
        thread.Join();
        return status;
    }

    static int Serve(string registryPath)
    {
        IgniteExt ignite;
        Codec codec;
        Frames frames;
        using (JsonDocument registry = JsonDocument.Parse(File.ReadAllBytes(registryPath)))
        {
            ignite = new IgniteExt(registry.RootElement);
            codec = new Codec(ignite);
            frames = new Frames(codec, registry.RootElement);
        }
        var tuples = new BinaryTuple(codec, ignite);
        var input = new StdinLines(Console.OpenStandardInput());
        using Stream stdout = new BufferedStream(Console.OpenStandardOutput(), 1 << 16);
        // The writer fills a buffer (its Flush on a Stream would flush the stream too); Respond copies it out.
        var answer = new ArrayBufferWriter<byte>(1 << 16);
        using var output = new Utf8JsonWriter(answer, WriteOptions);
        var packed = new ArrayBufferWriter<byte>(1 << 16);   // an encode's MessagePack bytes, reused
        while (input.Next(out ReadOnlyMemory<byte> line))
        {
            if (IsBlank(line.Span))
            {
                continue;
            }
            JsonDocument request;
            try
            {
                request = JsonDocument.Parse(line, ReadOptions);   // the UTF-8 bytes as read: no string of the line
            }
            catch (JsonException e)
            {
                string text = Encoding.UTF8.GetString(line.Span);
                Log($"unreadable request: {e.Message}");
                Respond(output, answer, stdout, Unreadable(text, e), input);
                continue;
            }
            using (request)   // disposed before the next line is read: the document reads the line's buffer
            {
                JsonElement root = request.RootElement;
                string? cmd = root.ValueKind == JsonValueKind.Object && root.TryGetProperty("cmd", out JsonElement c)
                    && c.ValueKind == JsonValueKind.String ? c.GetString() : null;
                if (cmd == "stop")
                {
                    break;
                }
                if (cmd == "start")
                {
                    Respond(output, answer, stdout, Start(ignite), input);
                }
                else
                {
                    Answer(codec, tuples, frames, ignite, root, output, answer, packed);
                    EndLine(output, answer, stdout, input);
                }
            }
        }
        stdout.Flush();
        return 0;
    }

    /// <summary>Writes one answer line; flushed only when the next request is not already buffered (a read could block).</summary>
    static void Respond(Utf8JsonWriter output, ArrayBufferWriter<byte> answer, Stream stdout, JsonObject response, StdinLines input)
    {
        response.WriteTo(output);
        EndLine(output, answer, stdout, input);
    }

    /// <summary>Copies the answer written to <paramref name="answer"/> out as one line.</summary>
    static void EndLine(Utf8JsonWriter output, ArrayBufferWriter<byte> answer, Stream stdout, StdinLines input)
    {
        output.Flush();
        output.Reset();
        stdout.Write(answer.WrittenSpan);
        answer.ResetWrittenCount();
        stdout.WriteByte((byte)'\n');
        if (!input.LineBuffered)
        {
            stdout.Flush();
        }
    }

    /// <summary>Only ASCII whitespace: checked on the bytes, without decoding the line.</summary>
    static bool IsBlank(ReadOnlySpan<byte> line)
    {
        foreach (byte b in line)
        {
            if (b is not ((byte)' ' or (byte)'\t' or (byte)'\r' or (byte)'\n' or 0x0b or 0x0c))
            {
                return false;
            }
        }
        return true;
    }

    static void Log(string message) => Console.Error.WriteLine("csharp-runner: " + message);

    /// <summary>The answer to a line System.Text.Json cannot read: 'skipped', with the id found by a plain text match.</summary>
    static JsonObject Unreadable(string line, JsonException e)
    {
        Match id = RequestId().Match(line);
        return new JsonObject
        {
            ["id"] = id.Success ? long.Parse(id.Groups[1].Value) : 0,
            ["skipped"] = "runner cannot read the request: " + e.Message,
        };
    }

    static JsonObject Start(IgniteExt ignite)
    {
        Assembly library = typeof(MessagePackWriter).Assembly;
        // "2.5.307+<commit>": the package version the assembly was built as (its AssemblyVersion is only 2.5.0.0).
        string version = library.GetCustomAttribute<AssemblyInformationalVersionAttribute>()?.InformationalVersion.Split('+')[0]
            ?? library.GetName().Version?.ToString() ?? "unknown";
        return new JsonObject
        {
            ["protocol"] = Protocol,
            ["name"] = "csharp",
            ["language"] = $"C# on {RuntimeInformation.FrameworkDescription}",
            ["library"] = "MessagePack-CSharp (MessagePack)",
            ["library_version"] = version,
            ["corpus_majors"] = new JsonArray(1),
            ["capabilities"] = new JsonObject
            {
                ["ops"] = new JsonArray("encode", "decode"),
                ["eras"] = new JsonArray(ignite.SupportedEras.Select(era => (JsonNode?)era).ToArray()),
                ["formats"] = new JsonArray(BinaryTuple.Formats.Prepend("msgpack").Append(Frames.Format).Select(f => (JsonNode?)f).ToArray()),
            },
        };
    }

    static readonly JsonEncodedText IdKey = JsonEncodedText.Encode("id"), HexKey = JsonEncodedText.Encode("hex"),
        ValuesKey = JsonEncodedText.Encode("values"), SkippedKey = JsonEncodedText.Encode("skipped"),
        ErrorKey = JsonEncodedText.Encode("error"), FieldsKey = JsonEncodedText.Encode("fields");

    /// <summary>
    /// An encode or decode request: a result, an error class, or 'skipped' when the runner itself failed. The answer
    /// is written straight to <paramref name="output"/>; on a failure what was written is dropped and the verdict
    /// written instead.
    /// </summary>
    static void Answer(Codec codec, BinaryTuple tuples, Frames frames, IgniteExt ignite, JsonElement request, Utf8JsonWriter output,
        ArrayBufferWriter<byte> answer, ArrayBufferWriter<byte> packed)
    {
        long id = 0;
        try
        {
            id = request.GetProperty("id").GetInt64();
            output.WriteStartObject();
            output.WriteNumber(IdKey, id);
            string cmd = Fields.Text(request, "cmd");
            string era = Fields.Text(request, "era");
            if (!ignite.IsEra(era))
            {
                output.WriteString(SkippedKey, $"unknown era '{era}'");
            }
            else
            {
                string format = request.TryGetProperty("format", out _) ? Fields.Text(request, "format") : "msgpack";
                if (format == Frames.Format)   // spec.md 11: one frame of a message kind
                {
                    string kind = Fields.Text(request, "frame");
                    HashSet<string> features = request.TryGetProperty("features", out _)
                        ? [.. Fields.Array(request, "features").EnumerateArray().Select(f => f.GetString()!)] : [];
                    if (cmd == "encode")
                    {
                        Fields.WriteHex(output, HexKey, frames.Encode(kind, request.GetProperty("fields"), features));
                    }
                    else if (cmd == "decode")
                    {
                        output.WritePropertyName(FieldsKey);
                        frames.Decode(kind, Fields.HexView(request, "hex"), era, features, output);
                    }
                    else
                    {
                        output.WriteString(SkippedKey, $"unknown cmd '{cmd}'");
                    }
                }
                else if (format != "msgpack")   // Binary Tuple formats (spec 6.2)
                {
                    string[] columns = request.TryGetProperty("columns", out JsonElement cols)
                        ? [.. cols.EnumerateArray().Select(col => col.GetString()!)] : [];
                    if (cmd == "encode")
                    {
                        Fields.WriteHex(output, HexKey, tuples.Encode(format, Fields.Array(request, "values"), era));
                    }
                    else if (cmd == "decode")
                    {
                        output.WritePropertyName(ValuesKey);
                        tuples.Decode(format, Fields.HexView(request, "hex").ToArray(), era, columns).WriteTo(output);
                    }
                    else
                    {
                        output.WriteString(SkippedKey, $"unknown cmd '{cmd}'");
                    }
                }
                else if (cmd == "encode")
                {
                    packed.ResetWrittenCount();
                    codec.Encode(Fields.Array(request, "values"), packed);
                    Fields.WriteHex(output, HexKey, packed.WrittenSpan);
                }
                else if (cmd == "decode")
                {
                    output.WritePropertyName(ValuesKey);
                    codec.Decode(Fields.HexView(request, "hex"), era, output);
                }
                else
                {
                    output.WriteString(SkippedKey, $"unknown cmd '{cmd}'");
                }
            }
            output.WriteEndObject();
        }
        catch (WireError e)
        {
            Discard(output, answer, id);
            output.WriteStartObject(ErrorKey);
            output.WriteString("class", e.Class);
            output.WriteString("message", e.Message);
            output.WriteEndObject();
            output.WriteEndObject();
        }
        catch (NotImplementedException e)
        {
            Discard(output, answer, id);
            output.WriteString(SkippedKey, e.Message);
            output.WriteEndObject();
        }
        catch (Exception e)   // not a verdict on the input: a bad request or a runner bug (the harness decides)
        {
            Log($"request {id}: internal error: {e}");
            Discard(output, answer, id);
            output.WriteString(SkippedKey, $"internal error: {e.GetType().Name}: {e.Message}");
            output.WriteEndObject();
        }
    }

    /// <summary>Drops a partly written answer and starts it again with its id (0 when the request has none).</summary>
    static void Discard(Utf8JsonWriter output, ArrayBufferWriter<byte> answer, long id)
    {
        output.Reset();
        answer.ResetWrittenCount();
        output.WriteStartObject();
        output.WriteNumber(IdKey, id);
    }
}
