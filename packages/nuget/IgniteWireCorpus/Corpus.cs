using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Reflection;
using System.Security.Cryptography;
using System.Text.Json;

namespace IgniteWireCorpus;

/// <summary>One corpus file as vectors/manifest.json lists it (schema/manifest.schema.json).</summary>
public sealed record CorpusFile(string Path, string Sha256, long Bytes, int Vectors);

/// <summary>
/// The Ignite 3 wire-value golden-vector corpus: <see cref="Embedded"/> (this package's), or
/// <see cref="Load(string)"/> for a directory. Every file is checked against manifest.json before anything is
/// read, and a tampered or partial copy is refused (<see cref="CorpusIntegrityException"/>). The vectors' structure is the
/// suite's schema/corpus.schema.json; <see cref="Vector"/> reads it, it does not restate it.
/// </summary>
public sealed class Corpus
{
    private const string ResourcePrefix = "vectors/";
    // array-map.json nests 198 deep, past System.Text.Json's default limit of 64.
    private static readonly JsonDocumentOptions JsonOptions = new() { MaxDepth = 1024 };
    private static readonly Lazy<Corpus> EmbeddedCorpus = new(LoadEmbedded);

    private readonly List<Vector> vectors = new();
    private readonly Dictionary<string, Vector> byId = new();

    /// <summary>corpus_version.</summary>
    public string Version { get; }
    /// <summary>spec_version.</summary>
    public string SpecVersion { get; }
    /// <summary>The SHA-256 of manifest.json's bytes (lower-case hex).</summary>
    public string ManifestSha256 { get; }
    /// <summary>The manifest's files with their vector counts.</summary>
    public IReadOnlyList<CorpusFile> Files { get; }

    /// <summary>The manifest's vector counts by file.</summary>
    public IReadOnlyDictionary<string, int> Counts => Files.ToDictionary(f => f.Path, f => f.Vectors);

    /// <summary>The corpus embedded in this package, verified the first time it is asked for.</summary>
    public static Corpus Embedded => EmbeddedCorpus.Value;

    /// <summary>The corpus in <paramref name="directory"/> (manifest.json and the files it lists), verified.</summary>
    public static Corpus Load(string directory)
    {
        var names = Directory.EnumerateFileSystemEntries(directory).Select(System.IO.Path.GetFileName).ToList();
        return new Corpus(directory, names!, name =>
        {
            var path = System.IO.Path.Combine(directory, name);
            return File.Exists(path) ? File.ReadAllBytes(path) : null;
        });
    }

    private static Corpus LoadEmbedded()
    {
        var assembly = typeof(Corpus).Assembly;
        var names = assembly.GetManifestResourceNames().Where(n => n.StartsWith(ResourcePrefix, StringComparison.Ordinal))
            .Select(n => n.Substring(ResourcePrefix.Length)).ToList();
        return new Corpus("embedded vectors", names, name => ReadResource(assembly, ResourcePrefix + name));
    }

    private static byte[]? ReadResource(Assembly assembly, string name)
    {
        using var stream = assembly.GetManifestResourceStream(name);
        if (stream == null)
        {
            return null;
        }
        using var copy = new MemoryStream();
        stream.CopyTo(copy);
        return copy.ToArray();
    }

    private Corpus(string where, IReadOnlyCollection<string> names, Func<string, byte[]?> read)
    {
        var manifestBytes = read("manifest.json")
            ?? throw new CorpusIntegrityException(where, "?", new[] { new CorpusProblem("manifest.json", "missing") });
        var manifest = Parse(where, "manifest.json", manifestBytes).RootElement;
        Version = manifest.GetProperty("corpus_version").GetString()!;
        SpecVersion = manifest.GetProperty("spec_version").GetString()!;
        ManifestSha256 = Sha256Hex(manifestBytes);
        Files = manifest.GetProperty("files").EnumerateArray().Select(f => new CorpusFile(
            f.GetProperty("path").GetString()!, f.GetProperty("sha256").GetString()!,
            f.GetProperty("bytes").GetInt64(), f.GetProperty("vectors").GetInt32())).ToList();

        var problems = new List<CorpusProblem>();
        var contents = new List<byte[]>();
        foreach (var file in Files)
        {
            var data = read(file.Path);
            if (data == null)
            {
                problems.Add(new CorpusProblem(file.Path, "missing"));
                continue;
            }
            var actual = Sha256Hex(data);
            // The size is compared too: it is what the manifest records besides the hash.
            if (actual != file.Sha256 || data.LongLength != file.Bytes)
            {
                problems.Add(new CorpusProblem(file.Path, "modified", file.Sha256, actual, file.Bytes, data.LongLength));
            }
            contents.Add(data);
        }
        var listed = Files.Select(f => f.Path).ToHashSet();
        problems.AddRange(names.Where(n => n != "manifest.json" && !listed.Contains(n)).OrderBy(n => n, StringComparer.Ordinal)
            .Select(n => new CorpusProblem(n, "extra")));
        if (problems.Count > 0)
        {
            throw new CorpusIntegrityException(where, Version, problems);
        }
        for (var i = 0; i < Files.Count; i++)
        {
            var root = Parse(where, Files[i].Path, contents[i]).RootElement;
            var family = root.GetProperty("family").GetString()!;
            foreach (var v in root.GetProperty("vectors").EnumerateArray())
            {
                var vector = new Vector(v, family, Files[i].Path);
                vectors.Add(vector);
                byId[vector.Id] = vector;
            }
        }
    }

    /// <summary>The vectors every given criterion selects (null: any), in corpus order.</summary>
    /// <param name="family">The corpus file's family, e.g. "bt-decimal".</param>
    /// <param name="era">"msgpack" or an Ignite era, e.g. "beta1".</param>
    /// <param name="format">"msgpack", "binary-tuple", "table-row", ...</param>
    /// <param name="kind">"value", "decode-reject" or "encode-reject" (<see cref="VectorKind"/>).</param>
    /// <param name="rule">A spec rule id the vector checks, e.g. "MP-BIN-WIDE".</param>
    public IEnumerable<Vector> Vectors(string? family = null, string? era = null, string? format = null,
        string? kind = null, string? rule = null) =>
        vectors.Where(v => (family == null || v.Family == family) && (era == null || v.Era == era)
            && (format == null || v.Format == format) && (kind == null || v.Kind == kind)
            && (rule == null || v.Rules.Contains(rule)));

    /// <summary>The vector with this id, or null.</summary>
    public Vector? Find(string id) => byId.TryGetValue(id, out var v) ? v : null;

    private static JsonDocument Parse(string where, string file, byte[] data)
    {
        try
        {
            return JsonDocument.Parse(data, JsonOptions);
        }
        catch (JsonException e)
        {
            throw new InvalidDataException($"IgniteWireCorpus: {where}: {file}: {e.Message}", e);
        }
    }

    private static string Sha256Hex(byte[] data) => Convert.ToHexString(SHA256.HashData(data)).ToLowerInvariant();
}
