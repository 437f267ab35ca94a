using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text.RegularExpressions;

namespace IgniteWireCorpus;

/// <summary>One line of a skip list: SCOPE (an id, an id glob, or family:/era:/format: and a name), OP-GLOB, reason.</summary>
public sealed record SkipEntry(int Line, string Scope, string OpGlob, string Reason);

/// <summary>
/// A skip list in the conformance harness's expected-failures grammar (harness/expectations.py): one entry a line,
/// <c>SCOPE  OP-GLOB  reason</c>, '#' comment lines; SCOPE is a vector id, an id glob ('*' the only wildcard), or
/// family:NAME, era:ERA, format:FORMAT. The first entry (in file order) that matches gives the reason.
/// </summary>
public sealed class SkipList
{
    private static readonly Regex IdGlob = new(@"^[a-z0-9*]([a-z0-9._*-]*)$");
    private static readonly Regex Scoped = new(@"^(family|era|format):([a-z0-9][a-z0-9._-]*)$");
    private static readonly Regex Op = new(@"^(encode|decode|decode\[[a-z0-9]+([.-][a-z0-9]+)*\]|reject|reject-encode)$");
    private static readonly Regex Fields = new(@"^(\S+)\s+(\S+)\s+(.+)$");
    private static readonly string[] SampleOps = { "encode", "decode", "decode[x]", "reject", "reject-encode" };

    private readonly List<(SkipEntry Entry, Regex? Id, Regex Op)> entries = new();

    /// <summary>The entries in file order.</summary>
    public IReadOnlyList<SkipEntry> Entries => entries.Select(e => e.Entry).ToList();

    /// <summary>Parses skip-list text; a bad line is a FormatException naming its line number.</summary>
    public static SkipList Parse(string text)
    {
        var list = new SkipList();
        var lines = text.Split('\n');
        for (var i = 0; i < lines.Length; i++)
        {
            var line = lines[i].Trim();
            if (line.Length == 0 || line.StartsWith('#'))
            {
                continue;
            }
            var fields = Fields.Match(line);
            if (!fields.Success)
            {
                throw new FormatException($"skip list line {i + 1}: expected 'SCOPE  OP-GLOB  reason' (the reason is mandatory), got: {line}");
            }
            string scope = fields.Groups[1].Value, op = fields.Groups[2].Value;
            var scoped = Scoped.IsMatch(scope);
            if (!scoped && scope.Contains(':'))
            {
                throw new FormatException($"skip list line {i + 1}: '{scope}' is not a scope (family:NAME, era:ERA or format:FORMAT)");
            }
            if (!scoped && !IdGlob.IsMatch(scope))
            {
                throw new FormatException($"skip list line {i + 1}: '{scope}' is not a vector id or id glob");
            }
            var opRegex = Glob(op);
            if (!Op.IsMatch(op.Replace('*', 'x')) && !SampleOps.Any(opRegex.IsMatch))
            {
                throw new FormatException($"skip list line {i + 1}: '{op}' is not an op or op glob (encode, decode, decode[<label>], reject, reject-encode)");
            }
            list.entries.Add((new SkipEntry(i + 1, scope, op, fields.Groups[3].Value), scoped ? null : Glob(scope), opRegex));
        }
        return list;
    }

    /// <summary>Reads and parses the skip-list file at <paramref name="path"/>.</summary>
    public static SkipList Load(string path)
    {
        try
        {
            return Parse(File.ReadAllText(path));
        }
        catch (FormatException e)
        {
            throw new FormatException($"{path}: {e.Message}", e);
        }
    }

    /// <summary>
    /// The reason of the first entry that matches the vector and op ("encode", "decode", "decode[&lt;label&gt;]",
    /// "reject", "reject-encode"), or null.
    /// </summary>
    public string? Reason(Vector vector, string op)
    {
        foreach (var (entry, id, opRegex) in entries)
        {
            if (opRegex.IsMatch(op) && (id?.IsMatch(vector.Id) ?? ScopeMatches(entry.Scope, vector)))
            {
                return entry.Reason;
            }
        }
        return null;
    }

    private static bool ScopeMatches(string scope, Vector v)
    {
        var (kind, name) = (scope[..scope.IndexOf(':')], scope[(scope.IndexOf(':') + 1)..]);
        return kind switch { "family" => v.Family == name, "era" => v.Era == name, _ => v.Format == name };
    }

    private static Regex Glob(string pattern) =>
        new("^" + string.Join(".*", pattern.Split('*').Select(Regex.Escape)) + "$");
}
