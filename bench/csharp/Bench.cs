using System;
using System.Buffers;
using System.Buffers.Binary;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Runtime.InteropServices;
using System.Text.Json;
using System.Text.Json.Nodes;
using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Jobs;
using BenchmarkDotNet.Loggers;
using BenchmarkDotNet.Running;
using BenchmarkDotNet.Toolchains.InProcess.Emit;
using IgniteRunner;
using MessagePack;
using Perfolizer.Horology;

namespace IgniteBench;

/// <summary>
/// MessagePack-CSharp benchmark: the IEP-75 cases and the Ignite.NET Person, through the library's own
/// MessagePackWriter/MessagePackReader on native values (plain) and through the runner's type-directed Codec on
/// typed values (typed).
///   dotnet Bench.dll bench/build/cases.json schema/registry.json OUT.jsonl [repeat] [seconds per repeat]
/// BenchmarkDotNet runs in process (no generated project to build), one launch, a short warm-up, then `repeat`
/// iterations of about `seconds` each; its clock here is this process's CPU time, as in the other languages.
/// One JSON line per (case, op, path) goes to OUT.jsonl: median, min and max ops/s over the iterations.
/// </summary>
public static class Program
{
    public static int Main(string[] args)
    {
        Cases.Load(args[0], args[1]);
        string? failure = Cases.CheckAll();
        if (failure != null)
        {
            Console.Error.WriteLine("csharp " + failure);
            return 1;
        }
        int repeat = args.Length > 3 ? int.Parse(args[3]) : 7;
        double seconds = args.Length > 4 ? double.Parse(args[4], System.Globalization.CultureInfo.InvariantCulture) : 0.1;
        // ShortRun's shape (one launch, 3 warm-up iterations) with `repeat` measured iterations; the pilot stage picks
        // the invocation count that fills `seconds` per iteration.
        Job job = new Job("short").WithToolchain(InProcessEmitToolchain.DontLogOutput).WithClock(CpuClock.Instance)
            .WithStrategy(BenchmarkDotNet.Engines.RunStrategy.Throughput).WithLaunchCount(1).WithWarmupCount(3)
            .WithIterationCount(repeat).WithIterationTime(TimeInterval.FromMilliseconds(seconds * 1000))
            .WithOutlierMode(Perfolizer.Mathematics.OutlierDetection.OutlierMode.DontRemove);   // every repeat counts, as elsewhere
        var config = ManualConfig.CreateEmpty().AddJob(job).AddLogger(new StreamLogger(new StreamWriter(Console.OpenStandardError()) { AutoFlush = true }))
            .WithOptions(ConfigOptions.DisableLogFile | ConfigOptions.JoinSummary)
            .WithArtifactsPath(Path.Combine(Path.GetTempPath(), "ignite-bench-csharp"));
        var summary = BenchmarkRunner.Run<Ops>(config);
        using var output = new StreamWriter(args[2]);
        string version = typeof(MessagePackWriter).Assembly.GetCustomAttributes(typeof(System.Reflection.AssemblyInformationalVersionAttribute), false)
            .Cast<System.Reflection.AssemblyInformationalVersionAttribute>().First().InformationalVersion.Split('+')[0];
        foreach (var report in summary.Reports)
        {
            string name = (string)report.BenchmarkCase.Parameters["Name"];
            string[] parts = name.Split('/');
            var stats = report.ResultStatistics ?? throw new InvalidOperationException($"{name}: no result");
            var line = new JsonObject
            {
                ["lang"] = "csharp",
                ["library"] = $"MessagePack-CSharp {version} on {RuntimeInformation.FrameworkDescription}",
                ["timer"] = $"BenchmarkDotNet 0.15.8, in process, short job: 1 launch, 3 warm-up and {repeat} measured iterations, process CPU time",
                ["case"] = parts[0],
                ["op"] = parts[1],
                ["path"] = parts[2],
                ["bytes"] = Cases.Canonical[parts[0]].Length,
                ["median"] = 1e9 / stats.Median,   // ns per op -> ops/s
                ["min"] = 1e9 / stats.Max,
                ["max"] = 1e9 / stats.Min,
                ["n"] = stats.N,
            };
            output.WriteLine(line.ToJsonString());
        }
        return summary.Reports.Length == Ops.Names.Length ? 0 : 1;
    }
}

/// <summary>This process's CPU time (clock_gettime CLOCK_PROCESS_CPUTIME_ID, nanoseconds): a shared machine's other work counts less.</summary>
sealed partial class CpuClock : IClock
{
    public static readonly CpuClock Instance = new();

    [StructLayout(LayoutKind.Sequential)]
    struct TimeSpec
    {
        public long Seconds;
        public long Nanoseconds;
    }

    [LibraryImport("libc", EntryPoint = "clock_gettime")]
    private static partial int ClockGetTime(int clock, out TimeSpec time);

    const int ProcessCpuTime = 2;

    public string Title => "process CPU time";

    public bool IsAvailable => OperatingSystem.IsLinux();

    public Frequency Frequency => Frequency.GHz;

    public long GetTimestamp()
    {
        ClockGetTime(ProcessCpuTime, out TimeSpec t);
        return t.Seconds * 1_000_000_000 + t.Nanoseconds;
    }
}

record Car(int Id, string Model, int Year, int Seats);

record Person(int Id, string Name, string Data, Guid Guid);

/// <summary>The cases of bench/build/cases.json, both paths, and the check that each writes and reads them exactly.</summary>
static class Cases
{
    public const string Sql = "select * from cars where year > ? and seats = ?";
    const sbyte UuidExt = 3;   // Ignite's UUID ext code (3.0: msb then lsb, each little-endian)
    public static readonly Car Car = new(42, "Mazda MX-5 Miata", 2006, 2);
    public static readonly Person Person = new(int.MinValue, "John Johnson", new string('g', 1000), Guid.Parse("6f24146a-244a-4018-a36c-3e9cf5b42082"));

    public static readonly Dictionary<string, byte[]> Canonical = [];
    public static readonly Dictionary<string, JsonDocument> Values = [];
    public static readonly Dictionary<string, string> Eras = [];
    public static Codec Codec = null!;
    static readonly ArrayBufferWriter<byte> Buffer = new(2048);

    public static void Load(string casesPath, string registryPath)
    {
        using JsonDocument registry = JsonDocument.Parse(File.ReadAllBytes(registryPath));
        Codec = new Codec(new IgniteExt(registry.RootElement));
        using JsonDocument cases = JsonDocument.Parse(File.ReadAllBytes(casesPath));
        foreach (JsonProperty c in cases.RootElement.GetProperty("cases").EnumerateObject())
        {
            Canonical[c.Name] = Convert.FromHexString(c.Value.GetProperty("hex").GetString()!);
            Values[c.Name] = JsonDocument.Parse(c.Value.GetProperty("values").GetRawText());
            Eras[c.Name] = c.Value.GetProperty("era").GetString()!;
        }
    }

    // ---- plain: the library's writer and reader on native values, as a client would write them ----

    static byte[] Written(MessagePackWriter writer)
    {
        writer.Flush();
        byte[] bytes = Buffer.WrittenSpan.ToArray();
        Buffer.ResetWrittenCount();
        return bytes;
    }

    public static byte[] WritePrimitives()
    {
        var w = new MessagePackWriter(Buffer);
        w.WriteNil();
        w.Write(false);
        w.Write(true);
        w.Write(2005);
        w.Write(-1);
        w.Write(int.MinValue);
        w.Write(4294967296L);
        w.Write(0.1);
        w.Write("John Johnson");
        return Written(w);
    }

    public static object ReadPrimitives(byte[] data)
    {
        var r = new MessagePackReader(data);
        r.ReadNil();
        return (r.ReadBoolean(), r.ReadBoolean(), r.ReadInt32(), r.ReadInt32(), r.ReadInt32(), r.ReadInt64(), r.ReadDouble(), r.ReadString());
    }

    public static byte[] WriteSql()
    {
        var w = new MessagePackWriter(Buffer);
        w.Write(Sql);
        w.WriteArrayHeader(2);
        w.Write(2005);
        w.Write(2);
        return Written(w);
    }

    public static object ReadSql(byte[] data)
    {
        var r = new MessagePackReader(data);
        string sql = r.ReadString()!;
        var args = new int[r.ReadArrayHeader()];
        for (int i = 0; i < args.Length; i++)
        {
            args[i] = r.ReadInt32();
        }
        return (sql, string.Join(",", args));
    }

    public static byte[] WriteCar(bool named)
    {
        var w = new MessagePackWriter(Buffer);
        if (named)
        {
            w.WriteMapHeader(4);
            w.Write("id");
            w.Write(Car.Id);
            w.Write("model");
            w.Write(Car.Model);
            w.Write("year");
            w.Write(Car.Year);
            w.Write("seats");
            w.Write(Car.Seats);
        }
        else
        {
            w.WriteArrayHeader(4);
            w.Write(Car.Id);
            w.Write(Car.Model);
            w.Write(Car.Year);
            w.Write(Car.Seats);
        }
        return Written(w);
    }

    public static Car ReadCarNamed(byte[] data)
    {
        var r = new MessagePackReader(data);
        int id = 0, year = 0, seats = 0;
        string? model = null;
        for (int n = r.ReadMapHeader(); n > 0; n--)
        {
            switch (r.ReadString())
            {
                case "id": id = r.ReadInt32(); break;
                case "model": model = r.ReadString(); break;
                case "year": year = r.ReadInt32(); break;
                case "seats": seats = r.ReadInt32(); break;
                default: r.Skip(); break;
            }
        }
        return new Car(id, model!, year, seats);
    }

    public static Car ReadCarPositional(byte[] data)
    {
        var r = new MessagePackReader(data);
        r.ReadArrayHeader();
        return new Car(r.ReadInt32(), r.ReadString()!, r.ReadInt32(), r.ReadInt32());
    }

    public static byte[] WritePerson()
    {
        var w = new MessagePackWriter(Buffer);
        w.WriteArrayHeader(4);
        w.Write(Person.Id);
        w.Write(Person.Name);
        w.Write(Person.Data);
        w.WriteExtensionFormatHeader(new ExtensionHeader(UuidExt, 16));
        Span<byte> guid = w.GetSpan(16);
        Person.Guid.TryWriteBytes(guid, bigEndian: true, out _);   // text order, then each half little-endian
        guid[..8].Reverse();
        guid[8..16].Reverse();
        w.Advance(16);
        return Written(w);
    }

    public static Person ReadPerson(byte[] data)
    {
        var r = new MessagePackReader(data);
        r.ReadArrayHeader();
        int id = r.ReadInt32();
        string name = r.ReadString()!, text = r.ReadString()!;
        ExtensionHeader h = r.ReadExtensionFormatHeader();
        if (h.TypeCode != UuidExt || h.Length != 16)
        {
            throw new InvalidDataException("not a UUID");
        }
        Span<byte> guid = stackalloc byte[16];
        r.ReadRaw(16).CopyTo(guid);
        guid[..8].Reverse();
        guid[8..].Reverse();
        return new Person(id, name, text, new Guid(guid, bigEndian: true));
    }

    static readonly Dictionary<string, (Func<byte[]> Write, Func<byte[], object> Read, object Expected)> Plain = new()
    {
        ["primitives"] = (WritePrimitives, ReadPrimitives, (false, true, 2005, -1, int.MinValue, 4294967296L, 0.1, "John Johnson")),
        ["sql-request"] = (WriteSql, ReadSql, (Sql, "2005,2")),
        ["pojo-named"] = (() => WriteCar(true), ReadCarNamed, Car),
        ["pojo-positional"] = (() => WriteCar(false), ReadCarPositional, Car),
        ["person"] = (WritePerson, ReadPerson, Person),
    };

    // ---- typed: the runner's codec on typed values ----

    public static byte[] WriteTyped(string name) => Codec.Encode(Values[name].RootElement);

    public static JsonArray ReadTyped(string name, byte[] data) => Codec.Decode(data, Eras[name]);

    /// <summary>The op behind a benchmark name "case/op/path".</summary>
    public static Func<object> Op(string name)
    {
        string[] p = name.Split('/');
        string c = p[0];
        var plain = Plain[c];
        byte[] canonical = Canonical[c];
        return (p[1], p[2]) switch
        {
            ("write", "plain") => plain.Write,
            ("read", "plain") => () => plain.Read(canonical),
            ("write", "typed") => () => WriteTyped(c),
            ("read", "typed") => () => ReadTyped(c, canonical),
            ("roundtrip", "plain") => () => plain.Read(plain.Write()),
            ("roundtrip", "typed") => () => ReadTyped(c, WriteTyped(c)),
            _ => throw new ArgumentException(name),
        };
    }

    /// <summary>Both paths must write exactly the case's canonical bytes and read back its values before anything is timed.</summary>
    public static string? CheckAll()
    {
        foreach ((string c, var plain) in Plain)
        {
            var bad = new List<string>();
            if (!plain.Write().AsSpan().SequenceEqual(Canonical[c]))
            {
                bad.Add("plain write");
            }
            if (!plain.Read(Canonical[c]).Equals(plain.Expected))
            {
                bad.Add("plain read");
            }
            if (!WriteTyped(c).AsSpan().SequenceEqual(Canonical[c]))
            {
                bad.Add("typed write");
            }
            if (!JsonNode.DeepEquals(ReadTyped(c, Canonical[c]), JsonNode.Parse(Values[c].RootElement.GetRawText())))
            {
                bad.Add("typed read");
            }
            if (bad.Count > 0)
            {
                return $"{c}: {string.Join(", ", bad)} differ from the case's bytes/values";
            }
        }
        return null;
    }
}

/// <summary>One benchmark per (case, op, path), in bench/README.md's order; the op is picked once, in GlobalSetup.</summary>
public class Ops
{
    public static readonly string[] Names =
    [
        .. new[] { "primitives", "sql-request", "pojo-named", "pojo-positional" }
            .SelectMany(c => new[] { "write/plain", "write/typed", "read/plain", "read/typed" }.Select(op => $"{c}/{op}")),
        "person/roundtrip/plain", "person/roundtrip/typed",
    ];

    Func<object> op = null!;

    [ParamsSource(nameof(AllNames))]
    public string Name { get; set; } = "";

    public static IEnumerable<string> AllNames => Names;

    [GlobalSetup]
    public void Setup() => op = Cases.Op(Name);

    [Benchmark]
    public object Run() => op();
}
