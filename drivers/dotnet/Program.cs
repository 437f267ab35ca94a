// The node driver over the official Apache Ignite 3 .NET client (drivers/PROTOCOL.md): runs one workload through
// the client's public API (IgniteClient.StartAsync, Tables, RecordBinaryView, Sql) and prints one outcome line
// (schema/driver.schema.json). Logs go to stderr. One case is one connection: the driver turns the client's
// retries and background reconnects off (RetryNonePolicy, ReconnectInterval 0), so a failure is reported as the
// client met it; everything else is the client's default (heartbeat interval 30 s, which the idle timeout the node
// announces lowers).
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text.Json;
using System.Text.Json.Nodes;
using System.Threading;
using System.Threading.Tasks;
using Apache.Ignite;
using Apache.Ignite.Sql;
using Apache.Ignite.Table;

internal static class Program
{
    private static readonly string[] Workloads = { "connect", "table-get", "upsert-get", "sql-select", "idle", "two-in-flight" };

    private static async Task<int> Main(string[] args)
    {
        string workload = args.Length > 1 ? args[1] : "";
        JsonObject outcome;
        if (!Workloads.Contains(workload))
        {
            outcome = new JsonObject { ["workload"] = workload, ["status"] = "unclaimed", ["reason"] = "unknown workload" };
        }
        else
        {
            try
            {
                var run = Run(args[0], workload, args.Length > 2 ? double.Parse(args[2], System.Globalization.CultureInfo.InvariantCulture) : 0);
                var values = await run.WaitAsync(TimeSpan.FromSeconds(20));
                outcome = new JsonObject { ["workload"] = workload, ["status"] = "ok", ["values"] = values };
            }
            catch (Exception e)
            {
                Console.Error.WriteLine(e);
                outcome = new JsonObject { ["workload"] = workload, ["status"] = "error", ["error"] = Error(e) };
            }
        }

        Console.Out.WriteLine(outcome.ToJsonString());
        Console.Out.Flush();
        return 0;
    }

    private static async Task<JsonObject> Run(string address, string workload, double seconds)
    {
        var cfg = new IgniteClientConfiguration(address)
        {
            RetryPolicy = new RetryNonePolicy(),
            ReconnectInterval = TimeSpan.Zero,
        };
        using var client = await IgniteClient.StartAsync(cfg);
        switch (workload)
        {
            case "connect":
                return new JsonObject();
            case "idle":
                await Task.Delay(TimeSpan.FromSeconds(seconds));
                return new JsonObject();
            case "table-get":
            {
                var table = await client.Tables.GetTableAsync("T");
                return new JsonObject { ["table"] = table?.Name };
            }
            case "two-in-flight":
            {
                var a = client.Tables.GetTableAsync("A");
                var b = client.Tables.GetTableAsync("B");
                var results = new JsonArray();
                foreach (var t in new[] { a, b })
                {
                    try
                    {
                        var table = await t;
                        results.Add(new JsonObject { ["table"] = table?.Name });
                    }
                    catch (Exception e)
                    {
                        results.Add(new JsonObject { ["error"] = Error(e) });
                    }
                }

                return new JsonObject { ["results"] = results };
            }
            case "upsert-get":
            {
                var table = await client.Tables.GetTableAsync("T") ?? throw new InvalidOperationException("no table T");
                var view = table.RecordBinaryView;
                await view.UpsertAsync(null, new IgniteTuple { ["ID"] = 1, ["VAL"] = "v1" });
                var row = await view.GetAsync(null, new IgniteTuple { ["ID"] = 1 });
                return new JsonObject
                {
                    ["row"] = row.HasValue
                        ? new JsonObject { ["ID"] = Convert.ToInt64(row.Value["ID"]), ["VAL"] = (string?)row.Value["VAL"] }
                        : null,
                };
            }
            case "sql-select":
            {
                await using var rs = await client.Sql.ExecuteAsync(null, "SELECT ID, VAL FROM T");
                var rows = new JsonArray();
                await foreach (var row in rs)
                {
                    rows.Add(new JsonArray(JsonValue.Create(Convert.ToInt64(row[0])), JsonValue.Create((string?)row[1])));
                }

                return new JsonObject { ["rows"] = rows };
            }
            default:
                throw new InvalidOperationException(workload);
        }
    }

    // kind: connection (IgniteClientConnectionException anywhere in the chain, or a socket error), server (an
    // IgniteException: an error object the server sent), timeout, other. codes: every Ignite code in the chain.
    private static JsonObject Error(Exception e)
    {
        var chain = new List<Exception>();
        void Walk(Exception? x)
        {
            if (x == null || chain.Count > 20) return;
            chain.Add(x);
            if (x is AggregateException agg)
            {
                foreach (var inner in agg.InnerExceptions) Walk(inner);
            }
            else
            {
                Walk(x.InnerException);
            }
        }

        Walk(e);
        var codes = new JsonArray();
        foreach (var code in chain.OfType<IgniteException>().Select(x => x.Code).Distinct()) codes.Add(code);
        string kind = chain.Any(x => x is IgniteClientConnectionException || x is IOException || x is System.Net.Sockets.SocketException)
            ? "connection"
            : chain.Any(x => x is TimeoutException) ? "timeout"
            : chain.Any(x => x is IgniteException) ? "server" : "other";
        var first = (Exception?)chain.OfType<IgniteException>().FirstOrDefault() ?? e;
        string message = first.Message.Length > 1000 ? first.Message[..1000] : first.Message;
        return new JsonObject
        {
            ["kind"] = kind,
            ["code"] = first is IgniteException ie ? ie.Code : null,
            ["codes"] = codes,
            ["class"] = first.GetType().FullName,
            ["message"] = message,
        };
    }
}
