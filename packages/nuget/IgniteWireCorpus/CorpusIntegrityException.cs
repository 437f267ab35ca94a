using System;
using System.Collections.Generic;
using System.Linq;

namespace IgniteWireCorpus;

/// <summary>One corpus file that does not match manifest.json.</summary>
/// <param name="File">The file name.</param>
/// <param name="Kind">"modified" (its SHA-256 or size is not the one listed), "missing" (listed, not there) or "extra" (there, not listed).</param>
/// <param name="ExpectedSha256">A modified file's SHA-256 in the manifest.</param>
/// <param name="ActualSha256">A modified file's SHA-256 as it is.</param>
/// <param name="ExpectedBytes">A modified file's size in the manifest.</param>
/// <param name="ActualBytes">A modified file's size as it is.</param>
public sealed record CorpusProblem(string File, string Kind, string? ExpectedSha256 = null, string? ActualSha256 = null,
    long ExpectedBytes = 0, long ActualBytes = 0)
{
    /// <inheritdoc/>
    public override string ToString() => Kind switch
    {
        "missing" => $"{File}: missing (listed in manifest.json)",
        "extra" => $"{File}: extra (not listed in manifest.json)",
        _ => $"{File}: sha256 {ActualSha256} ({ActualBytes} bytes), manifest.json says {ExpectedSha256} ({ExpectedBytes} bytes)",
    };
}

/// <summary>
/// A tampered or partial corpus, refused: every file that differs from its manifest.json, is missing or is extra.
/// </summary>
public sealed class CorpusIntegrityException : Exception
{
    /// <summary>The corpus directory, or "embedded vectors".</summary>
    public string Where { get; }
    /// <summary>The files that do not match the manifest.</summary>
    public IReadOnlyList<CorpusProblem> Problems { get; }

    /// <summary>A corpus that differs from its manifest (corpus <paramref name="version"/>); the message lists how.</summary>
    public CorpusIntegrityException(string where, string version, IReadOnlyList<CorpusProblem> problems)
        : base($"IgniteWireCorpus: {where} is not corpus {version} as its manifest.json describes it; refusing a tampered " +
               "or partial copy:" + string.Concat(problems.Select(p => "\n  " + p)))
    {
        Where = where;
        Problems = problems;
    }
}
