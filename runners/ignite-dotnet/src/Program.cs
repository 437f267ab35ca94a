using System;
using System.Collections.Generic;
using System.IO;
using System.Reflection;
using System.Runtime.InteropServices;
using System.Text;
using System.Text.Json;
using System.Text.Json.Nodes;
using Apache.Ignite;
using Apache.Ignite.Sql;

namespace IgniteDotnetAdapter;

/// <summary>
/// Runner protocol v1 (runners/PROTOCOL.md) over the official Apache Ignite 3 .NET client: one JSON request per line on
/// stdin, one answer per line on stdout, logs on stderr. Every encode and decode is a call into the client (Formats.cs);
/// the one judgement made here is which error class a client exception means (Classify, quoted in README.md).
/// </summary>
static class Program
{
    static readonly JsonSerializerOptions Compact = new() { Encoder = System.Text.Encodings.Web.JavaScriptEncoder.UnsafeRelaxedJsonEscaping };

    public static int Main()
    {
        using var input = new StreamReader(Console.OpenStandardInput(), new UTF8Encoding(false), false, 1 << 16);
        using var output = new StreamWriter(Console.OpenStandardOutput(), new UTF8Encoding(false), 1 << 16) { AutoFlush = false };
        string? line;
        while ((line = input.ReadLine()) != null)
        {
            if (string.IsNullOrWhiteSpace(line))
            {
                continue;
            }
            JsonObject answer;
            JsonNode? parsed = null;
            try
            {
                parsed = JsonNode.Parse(line, documentOptions: new JsonDocumentOptions { MaxDepth = 256 });
                var request = parsed!.AsObject();
                string cmd = Values.Text(request, "cmd");
                if (cmd == "stop")
                {
                    break;
                }
                answer = cmd == "start" ? Start() : Answer(request);
            }
            catch (Exception e)   // a request the adapter cannot read (Answer itself catches every client exception)
            {
                Console.Error.WriteLine("ignite-dotnet: unreadable request: " + e.Message);
                long id = parsed is JsonObject o && o["id"] is JsonValue v && v.TryGetValue(out long n) ? n : 0;
                answer = new JsonObject { ["id"] = id, ["skipped"] = "adapter cannot read the request: " + e.Message };
            }
            output.Write(answer.ToJsonString(Compact));
            output.Write('\n');
            output.Flush();   // StreamReader.Peek would block on a pipe: every answer is flushed
        }
        output.Flush();
        return 0;
    }

    static JsonObject Start()
    {
        Assembly client = typeof(IgniteClient).Assembly;
        string version = client.GetCustomAttribute<AssemblyInformationalVersionAttribute>()?.InformationalVersion.Split('+')[0]
            ?? client.GetName().Version?.ToString() ?? "unknown";
        string reference = Environment.GetEnvironmentVariable("IGNITE_REF") ?? "3.1.0";
        var formats = new JsonArray();
        foreach (string f in Formats.Claimed)
        {
            formats.Add(f);
        }
        return new JsonObject
        {
            ["protocol"] = 1,
            ["name"] = "ignite-dotnet",
            ["language"] = $"C# on {RuntimeInformation.FrameworkDescription}",
            ["library"] = "Apache Ignite 3 .NET client (Apache.Ignite, official, built from source)",
            ["library_version"] = $"{version} (apache/ignite-3 {reference})",
            ["corpus_majors"] = new JsonArray(1),
            ["capabilities"] = new JsonObject
            {
                ["ops"] = new JsonArray("encode", "decode"),
                ["eras"] = new JsonArray("3.0"),
                ["formats"] = formats,
            },
        };
    }

    static JsonObject Answer(JsonObject request)
    {
        long id = request["id"]!.GetValue<long>();
        string cmd = Values.Text(request, "cmd");
        string format = request["format"] is JsonValue f ? f.GetValue<string>() : "msgpack";
        try
        {
            List<ColumnType>? columns = null;
            if (request["columns"] is JsonArray cols)
            {
                columns = new List<ColumnType>(cols.Count);
                foreach (JsonNode? c in cols)
                {
                    columns.Add(Values.ColumnTypeOf(c!.GetValue<string>()));
                }
            }
            if (cmd == "encode")
            {
                var values = new List<object?>();
                foreach (JsonNode? v in request["values"]!.AsArray())
                {
                    values.Add(Values.ToClr(v));
                }
                return new JsonObject { ["id"] = id, ["hex"] = Values.Hex(Formats.Encode(format, values, columns)) };
            }
            if (cmd == "decode")
            {
                byte[] bytes = Convert.FromHexString(Values.Text(request, "hex"));
                var decoded = new JsonArray();
                foreach (object? v in Formats.Decode(format, bytes, columns))
                {
                    decoded.Add(Values.FromClr(v));
                }
                return new JsonObject { ["id"] = id, ["values"] = decoded };
            }
            return new JsonObject { ["id"] = id, ["skipped"] = $"unknown cmd {cmd}" };
        }
        catch (Exception e)
        {
            (string? cls, string message) = Classify(e, cmd == "encode");
            return cls == null
                ? new JsonObject { ["id"] = id, ["skipped"] = message }
                : new JsonObject { ["id"] = id, ["error"] = new JsonObject { ["class"] = cls, ["message"] = message } };
        }
    }

    /// <summary>
    /// The error-class table (README.md "Error classes"): the client's deliberate rejections, keyed by exception type
    /// and message, and NodaTime's range checks (the client's value types). Anything else, an exception the client
    /// did not mean as a rejection (IndexOutOfRange, ArgumentOutOfRange from Span.Slice, InvalidCast,
    /// NullReference, ...), is answered 'skipped' naming the exception and where it was thrown, never mapped.
    /// </summary>
    static (string? Class, string Message) Classify(Exception e, bool encoding)
    {
        string message = $"{e.GetType().Name}: {e.Message}";
        return e switch
        {
            SkipException => (null, e.Message),
            _ when e.TargetSite?.DeclaringType?.Assembly == typeof(NodaTime.LocalDate).Assembly => ("invalid.tuple-value", "NodaTime: " + message),
            InvalidOperationException when e.Message.StartsWith("Corrupted offset table", StringComparison.Ordinal) => ("malformed.tuple-offsets", message),
            InvalidOperationException when e.Message.StartsWith("Unsupported offset table size", StringComparison.Ordinal) => ("malformed.tuple-offsets", message),
            InvalidOperationException when e.Message.StartsWith("Invalid offset table size", StringComparison.Ordinal) => ("malformed.tuple-header", message),
            InvalidOperationException when e.Message.Contains(" has invalid length (expected ", StringComparison.Ordinal) => ("invalid.tuple-length", message),
            InvalidOperationException when e.Message.StartsWith("Binary tuple element with index ", StringComparison.Ordinal)
                && e.Message.EndsWith(" is null.", StringComparison.Ordinal) => ("invalid.tuple-length", message),
            // The writers' "Unsupported type" is a value they cannot write; the readers' a type id they do not know.
            IgniteClientException when e.Message.StartsWith("Unsupported type: ", StringComparison.Ordinal) => (encoding ? "unrepresentable" : "invalid.tuple-type", message),
            InvalidDataException when e.Message.StartsWith("Invalid code, expected ", StringComparison.Ordinal) => ("invalid.tuple-type", message),
            _ => (null, $"official client raised {message} (at {Where(e)}), not a deliberate rejection"),
        };
    }

    static string Where(Exception e)
    {
        MethodBase? site = e.TargetSite;
        string frame = site == null ? "?" : $"{site.DeclaringType?.FullName}.{site.Name}";
        // The innermost frame of the client itself, when the exception came from the runtime.
        foreach (string l in (e.StackTrace ?? "").Split('\n'))
        {
            if (l.Contains("Apache.Ignite.", StringComparison.Ordinal))
            {
                string at = l.Trim();
                int tree = at.IndexOf(" in ", StringComparison.Ordinal);
                int modules = at.IndexOf("modules/platforms/", StringComparison.Ordinal);
                // " in <stage>/modules/platforms/...cs:line N" -> " in modules/platforms/...cs:N", the upstream path.
                string place = tree >= 0 && modules > tree ? at[..tree] + " in " + at[modules..].Replace(":line ", ":", StringComparison.Ordinal) : at;
                return frame + " from " + (place.StartsWith("at ", StringComparison.Ordinal) ? place[3..] : place);
            }
        }
        return frame;
    }
}
