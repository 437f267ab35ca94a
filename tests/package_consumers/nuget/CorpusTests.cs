// A consumer's unit tests of the built IgniteWireCorpus package; the numbers to check are in $CORPUS_EXPECTED,
// computed by tests/test_packages_nuget.py from the stage.
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text.Json;
using IgniteWireCorpus;
using Xunit;

public class CorpusTests
{
    private static readonly JsonElement Want =
        JsonDocument.Parse(File.ReadAllBytes(Environment.GetEnvironmentVariable("CORPUS_EXPECTED")!)).RootElement;

    private static Dictionary<string, int> Counts(JsonElement obj) =>
        obj.EnumerateObject().Where(p => p.Value.GetInt32() > 0).ToDictionary(p => p.Name, p => p.Value.GetInt32());

    private static byte[] Ints(JsonElement array) => array.EnumerateArray().Select(b => (byte)b.GetInt32()).ToArray();

    private static string? Field(JsonElement obj, string key) => obj.TryGetProperty(key, out var v) ? v.GetString() : null;

    [Fact]
    public void VersionsAndCounts()
    {
        var corpus = Corpus.Embedded;
        Assert.Equal(Want.GetProperty("version").GetString(), corpus.Version);
        Assert.Equal(Want.GetProperty("spec_version").GetString(), corpus.SpecVersion);
        Assert.Equal(Want.GetProperty("manifest_sha256").GetString(), corpus.ManifestSha256);
        var all = corpus.Vectors().ToList();
        Assert.Equal(Counts(Want.GetProperty("kinds")), all.GroupBy(v => v.Kind).ToDictionary(g => g.Key, g => g.Count()));
        Assert.Equal(Counts(Want.GetProperty("files")), all.GroupBy(v => v.File).ToDictionary(g => g.Key, g => g.Count()));
        Assert.Equal(Counts(Want.GetProperty("files")), corpus.Files.ToDictionary(f => f.Path, f => f.Vectors));
        foreach (var kind in Want.GetProperty("kinds").EnumerateObject())
        {
            Assert.Equal(kind.Value.GetInt32(), corpus.Vectors(kind: kind.Name).Count());
        }
        foreach (var c in Want.GetProperty("filters").EnumerateArray())
        {
            var f = c.GetProperty("filter");
            var selected = corpus.Vectors(Field(f, "family"), Field(f, "era"), Field(f, "format"), Field(f, "kind"), Field(f, "rule"));
            Assert.True(c.GetProperty("count").GetInt32() == selected.Count(), $"filter {f}: {selected.Count()} vectors");
        }
    }

    [Fact]
    public void TenVectors()
    {
        foreach (var pick in Want.GetProperty("picks").EnumerateArray())
        {
            var id = pick.GetProperty("id").GetString()!;
            var v = Corpus.Embedded.Find(id) ?? throw new Exception($"no vector {id}");
            Assert.Equal(pick.GetProperty("kind").GetString(), v.Kind);
            Assert.Equal(pick.GetProperty("error").GetString(), v.Error ?? "");
            if (pick.GetProperty("bytes").ValueKind == JsonValueKind.Null)
            {
                Assert.Throws<InvalidOperationException>(() => v.Bytes);
            }
            else
            {
                Assert.Equal(Ints(pick.GetProperty("bytes")), v.Bytes);
            }
            Assert.Equal(pick.GetProperty("variants").EnumerateObject().ToDictionary(p => p.Name, p => Ints(p.Value)),
                v.Variants.ToDictionary(x => x.Label, x => x.Bytes));
            var values = pick.GetProperty("values");
            Assert.True(values.ValueKind == JsonValueKind.Null ? v.Values == null : JsonElement.DeepEquals(values, v.Values!.Value),
                $"{id}: values {v.Values}");
        }
    }

    [Fact]
    public void SkipList()
    {
        var skips = IgniteWireCorpus.SkipList.Load(Want.GetProperty("skips_file").GetString()!);
        var cases = JsonDocument.Parse(File.ReadAllBytes(Want.GetProperty("skips_expected").GetString()!))
            .RootElement.GetProperty("cases").EnumerateArray().ToList();
        Assert.NotEmpty(cases);
        foreach (var c in cases)
        {
            var id = c.GetProperty("id").GetString()!;
            var v = Corpus.Embedded.Find(id) ?? throw new Exception($"no vector {id}");
            var op = c.GetProperty("op").GetString()!;
            Assert.True(c.GetProperty("reason").GetString() == skips.Reason(v, op), $"Reason({id}, {op}) = {skips.Reason(v, op)}");
        }
        var error = Assert.Throws<FormatException>(() => IgniteWireCorpus.SkipList.Parse("int.fixint.p1 decode\n"));
        Assert.Contains("line 1", error.Message);
    }

    [Fact]
    public void LoadAndTamperRefusal()
    {
        var copy = Corpus.Load(Want.GetProperty("copy_dir").GetString()!);
        Assert.Equal(Want.GetProperty("total").GetInt32(), copy.Vectors().Count());
        Assert.Equal(Want.GetProperty("version").GetString(), copy.Version);
        foreach (var c in Want.GetProperty("tampered").EnumerateArray())
        {
            var dir = c.GetProperty("dir").GetString()!;
            var error = Assert.Throws<CorpusVerificationException>(() => Corpus.Load(dir));
            foreach (var s in c.GetProperty("must_contain").EnumerateArray())
            {
                Assert.Contains(s.GetString()!, error.Message);
            }
        }
    }
}
