using System;
using System.IO;
using System.Linq;
using System.Text.Json;

// Floor for the C# runner: the bare runtime starting and parsing every corpus file once (as the runner parses JSON).
int count = 0;
foreach (string path in Directory.GetFiles(args[0], "*.json").Where(p => Path.GetFileName(p) != "manifest.json").Order())
{
    using JsonDocument corpus = JsonDocument.Parse(File.ReadAllBytes(path), new JsonDocumentOptions { MaxDepth = 20_100 });
    count += corpus.RootElement.GetProperty("vectors").GetArrayLength();
}
Console.WriteLine(count);
