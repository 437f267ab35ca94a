using System;

namespace IgniteWireCorpus;

/// <summary>
/// A tampered or partial corpus, refused: its files differ from its manifest.json: a modified file (<see cref="Problem"/> "modified", with the
/// manifest's and the actual SHA-256), a listed file that is "missing", or files the manifest does not list
/// ("unlisted").
/// </summary>
public sealed class CorpusIntegrityException : Exception
{
    /// <summary>The corpus directory, or "embedded vectors".</summary>
    public string Where { get; }
    /// <summary>The file (for "unlisted": the files, comma-separated).</summary>
    public string File { get; }
    /// <summary>"modified", "missing" or "unlisted".</summary>
    public string Problem { get; }
    /// <summary>The manifest's SHA-256 of a modified file.</summary>
    public string? ExpectedSha256 { get; }
    /// <summary>The SHA-256 of a modified file as it is.</summary>
    public string? ActualSha256 { get; }

    /// <summary>A corpus that differs from its manifest; the message says how.</summary>
    public CorpusIntegrityException(string where, string file, string problem, string? expectedSha256, string? actualSha256)
        : base(Describe(where, file, problem, expectedSha256, actualSha256))
    {
        Where = where;
        File = file;
        Problem = problem;
        ExpectedSha256 = expectedSha256;
        ActualSha256 = actualSha256;
    }

    private static string Describe(string where, string file, string problem, string? expected, string? actual) => problem switch
    {
        "missing" => $"IgniteWireCorpus: {where}: {file} is listed in manifest.json but missing",
        "unlisted" => $"IgniteWireCorpus: {where}: {file} not listed in manifest.json",
        _ => $"IgniteWireCorpus: {where}: {file}: sha256 {actual}, manifest.json says {expected}; " +
             "refusing a tampered copy (reinstall the package or use an unmodified corpus)",
    };
}
