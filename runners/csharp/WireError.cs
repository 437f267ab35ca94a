using System;

namespace IgniteRunner;

/// <summary>A rejection with an error class from schema/registry.json; the runner answers it as an error response.</summary>
sealed class WireError : Exception
{
    public string Class { get; }

    public WireError(string errorClass, string message) : base(message) => Class = errorClass;

    public static void Check(bool ok, string errorClass, string message)
    {
        if (!ok)
        {
            throw new WireError(errorClass, message);
        }
    }

    public static WireError Truncated(string message) => new("malformed.truncated", message);

    public static WireError Unrepresentable(string message) => new("unrepresentable", message);
}
