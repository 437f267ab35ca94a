// A consumer's unit tests of the built IgniteWireCorpus package (tests/test_packages_nuget.py restores it from a
// local feed). $CORPUS_EXPECTED names the JSON of what to find (tests/package_fixtures/packages_helper.py);
// $CORPUS_DIR an intact corpus directory.
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

    private static Dictionary<string, int> Numbers(JsonElement obj) => obj.EnumerateObject().ToDictionary(p => p.Name, p => p.Value.GetInt32());

    private static string Text(JsonElement obj, string key) => obj.GetProperty(key).GetString()!;

    private static string Hex(byte[] bytes) => Convert.ToHexString(bytes).ToLowerInvariant();

    [Fact]
    public void VersionsAndCounts()
    {
        var corpus = Corpus.Embedded;
        Assert.Equal(Text(Want, "version"), corpus.Version);
        Assert.Equal(Text(Want, "spec_version"), corpus.SpecVersion);
        Assert.Equal(Text(Want, "manifest_sha256"), corpus.ManifestSha256);
        var all = corpus.Vectors().ToList();
        Assert.Equal(Want.GetProperty("total").GetInt32(), all.Count);
        Assert.Equal(Numbers(Want.GetProperty("kinds")), all.GroupBy(v => v.Kind).ToDictionary(g => g.Key, g => g.Count()));
        Assert.Equal(Numbers(Want.GetProperty("files")), all.GroupBy(v => v.File).ToDictionary(g => g.Key, g => g.Count()));
        Assert.Equal(Numbers(Want.GetProperty("files")), corpus.Counts);
        foreach (var (family, n) in Numbers(Want.GetProperty("families")))
        {
            Assert.True(n == corpus.Vectors(family: family).Count(), $"family {family}");
        }
        var f = Want.GetProperty("filter");
        var selected = corpus.Vectors(Text(f, "family"), Text(f, "era"), Text(f, "format"), Text(f, "kind"), Text(f, "rule")).Count();
        Assert.True(selected > 0 && selected == f.GetProperty("count").GetInt32(), $"filter {f}: {selected} vectors");
    }

    [Fact]
    public void TenVectors()
    {
        var samples = Want.GetProperty("samples").EnumerateArray().ToList();
        Assert.Equal(10, samples.Count);
        foreach (var s in samples)
        {
            var id = Text(s, "id");
            var v = Corpus.Embedded.Find(id) ?? throw new Exception($"no vector {id}");
            Assert.Equal(Text(s, "kind"), v.Kind);
            Assert.Equal(Text(s, "hex"), Hex(v.Bytes));
            Assert.Equal(s.GetProperty("variants").EnumerateObject().ToDictionary(p => p.Name, p => p.Value.GetString()!),
                v.Variants.ToDictionary(x => x.Label, x => Hex(x.Bytes)));
            // A value vector has canonical bytes (its Bytes), values and encode, decode and a decode[label] per variant.
            var isValue = v.Kind == VectorKind.Value;
            Assert.Equal(isValue ? v.Bytes : null, v.Canonical);
            Assert.Equal(isValue, v.Values != null || v.Fields != null);   // a frame vector has fields (spec.md 11)
            Assert.Equal(isValue ? 2 + v.Variants.Count : 1, v.Ops.Count);
        }
    }

    [Fact]
    public void FrameVector()
    {
        var f = Want.GetProperty("frame");
        var v = Corpus.Embedded.Find(Text(f, "id")) ?? throw new Exception($"no vector {Text(f, "id")}");
        Assert.Equal("frame", v.Format);
        Assert.Equal(Text(f, "frame"), v.Frame);
        Assert.Equal(f.GetProperty("fields").EnumerateArray().Select(n => n.GetString()!).ToList(),
            v.Fields!.Value.EnumerateObject().Select(p => p.Name).OrderBy(n => n, StringComparer.Ordinal).ToList());
        Assert.Equal(Text(f, "hex"), Hex(v.Canonical!));
        Assert.Null(v.Values);
    }

    [Fact]
    public void SkipList()
    {
        var skips = IgniteWireCorpus.SkipList.Load(Text(Want, "skips"));
        var cases = Want.GetProperty("skip_cases").EnumerateArray().ToList();
        Assert.NotEmpty(cases);
        foreach (var c in cases)
        {
            var (id, op) = (Text(c, "id"), Text(c, "op"));
            var v = Corpus.Embedded.Find(id) ?? throw new Exception($"no vector {id}");
            Assert.True(c.GetProperty("reason").GetString() == skips.Reason(v, op), $"Reason({id}, {op}) = {skips.Reason(v, op)}");
        }
    }

    [Fact]
    public void SkipListRefusesTheLinesTheHarnessRefuses()
    {
        var lines = Want.GetProperty("skip_lines").EnumerateArray().ToList();
        Assert.NotEmpty(lines);
        foreach (var line in lines)
        {
            var text = Text(line, "text");
            string? refused = null;
            try
            {
                IgniteWireCorpus.SkipList.Parse($"# a comment\n{text}\n");
            }
            catch (FormatException e)
            {
                refused = e.Message;
            }
            Assert.True(line.GetProperty("valid").GetBoolean() == (refused == null), $"{text}: {refused}");
            Assert.True(refused == null || refused.StartsWith("skip list line 2: ", StringComparison.Ordinal), refused);
        }
    }

    [Fact]
    public void LoadAndTamperRefusal()
    {
        var intact = Corpus.Load(Environment.GetEnvironmentVariable("CORPUS_DIR")!);
        Assert.Equal(Want.GetProperty("total").GetInt32(), intact.Vectors().Count());
        Assert.Equal(Text(Want, "version"), intact.Version);
        var t = Want.GetProperty("tampered");
        var error = Assert.Throws<CorpusIntegrityException>(() => Corpus.Load(Text(t, "dir")));
        var problem = Assert.Single(error.Problems);
        Assert.Equal((Text(t, "file"), "modified", Text(t, "expected"), Text(t, "actual")),
            (problem.File, problem.Kind, problem.ExpectedSha256, problem.ActualSha256));
        Assert.Contains($"{Text(t, "file")}: sha256 {Text(t, "actual")}", error.Message);
        Assert.Contains(Text(t, "expected"), error.Message);
        var p = Want.GetProperty("partial");
        var partial = Assert.Throws<CorpusIntegrityException>(() => Corpus.Load(Text(p, "dir")));
        Assert.Contains($"{Text(p, "missing")}: missing", partial.Message);
        Assert.Contains($"{Text(p, "extra")}: extra", partial.Message);
    }
}
