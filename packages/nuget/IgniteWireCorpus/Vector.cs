using System;
using System.Collections.Generic;
using System.Linq;
using System.Text.Json;

namespace IgniteWireCorpus;

/// <summary>The kinds of vector (schema/corpus.schema.json): what an implementation is asked to do with it.</summary>
public static class VectorKind
{
    /// <summary>Encode the values to the canonical bytes; decode them and every variant to the values.</summary>
    public const string Value = "value";
    /// <summary>Decoding <see cref="Vector.Bytes"/> must fail with <see cref="Vector.Error"/>.</summary>
    public const string DecodeReject = "decode-reject";
    /// <summary>Encoding <see cref="Vector.Values"/> must fail with <see cref="Vector.Error"/>.</summary>
    public const string EncodeReject = "encode-reject";
}

/// <summary>Another encoding of a value vector's values that a decoder must accept (op decode[Label]).</summary>
public sealed record Variant(string Label, byte[] Bytes, string Why, IReadOnlyList<string> Rules, bool EncoderMayEmit);

/// <summary>One golden vector; <see cref="Family"/> and <see cref="File"/> come from its corpus file.</summary>
public sealed class Vector
{
    internal Vector(JsonElement json, string family, string file)
    {
        Json = json;
        Family = family;
        File = file;
        Id = Text("id")!;
        Kind = Text("kind")!;
        Era = Text("era")!;
        Format = Text("format") ?? "msgpack";
        Rules = json.GetProperty("rules").EnumerateArray().Select(r => r.GetString()!).ToList();
    }

    /// <summary>The vector as its corpus file has it.</summary>
    public JsonElement Json { get; }
    /// <summary>The vector id (stable, never reused).</summary>
    public string Id { get; }
    /// <summary>The corpus file's family.</summary>
    public string Family { get; }
    /// <summary>The corpus file the vector is in.</summary>
    public string File { get; }
    /// <summary>"value", "decode-reject" or "encode-reject" (<see cref="VectorKind"/>).</summary>
    public string Kind { get; }
    /// <summary>"msgpack" or the Ignite era whose rules apply.</summary>
    public string Era { get; }
    /// <summary>What the bytes are; "msgpack" where the vector names none.</summary>
    public string Format { get; }
    /// <summary>The spec rule ids the vector checks, the primary one first.</summary>
    public IReadOnlyList<string> Rules { get; }
    /// <summary>"must", "should" or "impl": the level of the first rule.</summary>
    public string Level => Text("level")!;
    /// <summary>What the vector checks.</summary>
    public string Description => Text("description")!;
    /// <summary>The must-reject error class of a decode-reject or encode-reject vector; null for a value vector.</summary>
    public string? Error => Text("error");

    /// <summary>
    /// What a decoder reads: the canonical encoding of a value vector, the input of a decode-reject vector.
    /// An encode-reject vector has none (InvalidOperationException).
    /// </summary>
    public byte[] Bytes => Kind switch
    {
        VectorKind.Value => Hex("canonical", Json.GetProperty("canonical")),
        VectorKind.DecodeReject => Hex("hex", Json.GetProperty("hex")),
        _ => throw new InvalidOperationException($"IgniteWireCorpus: {Id}: a {Kind} vector has no bytes, only values"),
    };

    /// <summary>A value vector's canonical encoding; null for the other kinds.</summary>
    public byte[]? Canonical => Kind == VectorKind.Value ? Hex("canonical", Json.GetProperty("canonical")) : null;

    /// <summary>
    /// The operation names the harness runs on the vector, which a skip list's OP-GLOB matches: encode, decode and
    /// decode[&lt;label&gt;] per variant for a value vector; reject; reject-encode.
    /// </summary>
    public IReadOnlyList<string> Ops => Kind switch
    {
        VectorKind.Value => new[] { "encode", "decode" }.Concat(Variants.Select(v => $"decode[{v.Label}]")).ToList(),
        VectorKind.DecodeReject => new[] { "reject" },
        _ => new[] { "reject-encode" },
    };

    /// <summary>A value vector's other accepted encodings, in corpus order (none for other kinds).</summary>
    public IReadOnlyList<Variant> Variants => Json.TryGetProperty("variants", out var list)
        ? list.EnumerateArray().Select(v => new Variant(
            v.GetProperty("label").GetString()!, Hex("variant " + v.GetProperty("label").GetString(), v.GetProperty("hex")),
            v.GetProperty("why").GetString()!,
            v.TryGetProperty("rules", out var rules) ? rules.EnumerateArray().Select(r => r.GetString()!).ToList() : new List<string>(),
            v.GetProperty("encoder_may_emit").GetBoolean())).ToList()
        : new List<Variant>();

    /// <summary>The values in the typed value notation (schema/value.schema.json), a JSON array; null for a decode-reject vector.</summary>
    public JsonElement? Values => Json.TryGetProperty("values", out var values) ? values : null;

    /// <summary>A frame vector's message kind (format "frame", spec.md 11); null for the other formats.</summary>
    public string? Frame => Text("frame");

    /// <summary>A frame vector's named fields in place of values (value.schema.json#/$defs/frame_fields); null otherwise.</summary>
    public JsonElement? Fields => Json.TryGetProperty("fields", out var fields) ? fields : null;

    /// <summary>The feature names a frame vector's connection negotiated (empty when none).</summary>
    public IReadOnlyList<string> Features => Json.TryGetProperty("features", out var list)
        ? list.EnumerateArray().Select(f => f.GetString()!).ToList()
        : new List<string>();

    private string? Text(string key) => Json.TryGetProperty(key, out var v) ? v.GetString() : null;

    private byte[] Hex(string what, JsonElement hex)
    {
        try
        {
            return Convert.FromHexString(hex.GetString()!);
        }
        catch (FormatException e)
        {
            throw new FormatException($"IgniteWireCorpus: {Id}: {what} is not hex", e);
        }
    }
}
