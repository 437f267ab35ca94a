using System;
using System.Buffers;
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
        using (JsonDocument registry = JsonDocument.Parse(File.ReadAllBytes(registryPath)))
        {
            ignite = new IgniteExt(registry.RootElement);
        }
        var codec = new Codec(ignite);
        var tuples = new BinaryTuple(codec, ignite);
        var input = new StdinLines(Console.OpenStandardInput());
        using Stream stdout = new BufferedStream(Console.OpenStandardOutput(), 1 << 16);
        // The writer fills a buffer (its Flush on a Stream would flush the stream too); Respond copies it out.
        var answer = new ArrayBufferWriter<byte>(1 << 16);
        using var output = new Utf8JsonWriter(answer, WriteOptions);
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
                Respond(output, answer, stdout, cmd == "start" ? Start(ignite) : Answer(codec, tuples, ignite, root), input);
            }
        }
        stdout.Flush();
        return 0;
    }

    /// <summary>Writes one answer line; flushed only when the next request is not already buffered (a read could block).</summary>
    static void Respond(Utf8JsonWriter output, ArrayBufferWriter<byte> answer, Stream stdout, JsonObject response, StdinLines input)
    {
        response.WriteTo(output);
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
                ["formats"] = new JsonArray(BinaryTuple.Formats.Prepend("msgpack").Select(f => (JsonNode?)f).ToArray()),
            },
        };
    }

    /// <summary>An encode or decode request: a result, an error class, or 'skipped' when the runner itself failed.</summary>
    static JsonObject Answer(Codec codec, BinaryTuple tuples, IgniteExt ignite, JsonElement request)
    {
        var response = new JsonObject();
        try
        {
            response["id"] = request.GetProperty("id").GetInt64();
            string cmd = Fields.Text(request, "cmd");
            string era = Fields.Text(request, "era");
            if (!ignite.IsEra(era))
            {
                response["skipped"] = $"unknown era '{era}'";
                return response;
            }
            string format = request.TryGetProperty("format", out _) ? Fields.Text(request, "format") : "msgpack";
            if (format != "msgpack")   // Binary Tuple formats (spec 6.2)
            {
                string[] columns = request.TryGetProperty("columns", out JsonElement cols)
                    ? [.. cols.EnumerateArray().Select(col => col.GetString()!)] : [];
                if (cmd == "encode")
                {
                    response["hex"] = Fields.Hex(tuples.Encode(format, Fields.Array(request, "values"), era));
                }
                else if (cmd == "decode")
                {
                    response["values"] = tuples.Decode(format, Fields.Hex(request, "hex"), era, columns);
                }
                else
                {
                    response["skipped"] = $"unknown cmd '{cmd}'";
                }
            }
            else if (cmd == "encode")
            {
                response["hex"] = Fields.Hex(codec.Encode(Fields.Array(request, "values")));
            }
            else if (cmd == "decode")
            {
                response["values"] = codec.Decode(Fields.Hex(request, "hex"), era);
            }
            else
            {
                response["skipped"] = $"unknown cmd '{cmd}'";
            }
        }
        catch (WireError e)
        {
            response["error"] = new JsonObject { ["class"] = e.Class, ["message"] = e.Message };
        }
        catch (NotImplementedException e)
        {
            response["skipped"] = e.Message;
        }
        catch (Exception e)   // not a verdict on the input: a bad request or a runner bug (the harness decides)
        {
            Log($"request {response["id"]}: internal error: {e}");
            response["skipped"] = $"internal error: {e.GetType().Name}: {e.Message}";
        }
        response["id"] ??= 0;
        return response;
    }
}
