using System;
using System.Buffers;
using System.Collections.Generic;
using Apache.Ignite;
using Apache.Ignite.Internal.Buffers;
using Apache.Ignite.Internal.Compute;
using Apache.Ignite.Internal.Proto.BinaryTuple;
using Apache.Ignite.Internal.Proto.MsgPack;
using Apache.Ignite.Internal.Table;
using Apache.Ignite.Internal.Table.Serialization;
using Apache.Ignite.Marshalling;
using Apache.Ignite.Sql;
using Apache.Ignite.Table;
using NodaTime;

namespace IgniteDotnetAdapter;

/// <summary>
/// Each format (spec.md 6.2.1) as the official client's own code writes and reads it. Every byte goes through the
/// client: BinaryTupleBuilder/BinaryTupleReader (Internal/Proto/BinaryTuple), MsgPackWriter/MsgPackReader
/// (Internal/Proto/MsgPack), ComputePacker (Internal/Compute), StreamerReceiverSerializer and TupleSerializerHandler
/// (Internal/Table/Serialization). The adapter only picks the call and converts values (Values.cs).
/// </summary>
static class Formats
{
    public static readonly string[] Claimed = ["binary-tuple", "object", "object-array", "table-row", "collection", "compute-arg"];

    /// <summary>Time precision handed to the writers: 9 (nanoseconds), so no value is truncated by a column precision.</summary>
    const int Nanos = 9;

    public static byte[] Encode(string format, IReadOnlyList<object?> values, IReadOnlyList<ColumnType>? columns)
    {
        switch (format)
        {
            case "binary-tuple":
            {
                var cols = columns ?? throw new SkipException("binary-tuple without columns");
                using var builder = new BinaryTupleBuilder(values.Count);
                for (int i = 0; i < values.Count; i++)
                {
                    // AppendObject is the builder's own dispatch by column type; it has no case for PERIOD and DURATION
                    // (no 3.x table column has them), so those go to the builder's AppendPeriod and AppendDuration.
                    switch (cols[i], values[i])
                    {
                        case (ColumnType.Period, Period p):
                            builder.AppendPeriod(p);
                            break;
                        case (ColumnType.Duration, Duration d):
                            builder.AppendDuration(d);
                            break;
                        default:
                            builder.AppendObject(values[i], cols[i], ScaleOf(values[i]), Nanos);
                            break;
                    }
                }
                return builder.Build().ToArray();
            }
            case "object":
                return Write((ref MsgPackWriter w) => w.WriteObjectAsBinaryTuple(One(values)));
            case "object-array":
#if IGNITE_3_0
                return Write((ref MsgPackWriter w) => w.WriteObjectCollectionAsBinaryTuple(new List<object?>(values)));
#else
                return Write((ref MsgPackWriter w) => w.WriteObjectCollectionWithCountAsBinaryTuple(new List<object?>(values)));
#endif
            case "collection":
                // The shape of StreamerReceiverSerializer.WriteReceiverInfo: the tuple's element count, then the tuple
                // AppendObjectCollectionWithType fills (type id, count, items).
                return Write((ref MsgPackWriter w) =>
                {
                    using var builder = new BinaryTupleBuilder(values.Count + 2);
#if IGNITE_3_0
                    // 3.0.0: the builder takes a Span and has no NumElements (DataStreamerWithReceiver.WriteReceiverPayload).
                    builder.AppendObjectCollectionWithType<object?>(new List<object?>(values).ToArray().AsSpan());
                    w.Write(values.Count + 2);
#else
                    builder.AppendObjectCollectionWithType(new List<object?>(values));
                    w.Write(builder.NumElements);
#endif
                    w.Write(builder.Build().Span);
                });
            case "compute-arg":
#if IGNITE_3_0
                return One(values) is Marshalled m
                    ? Write((ref MsgPackWriter w) => ComputePacker.PackArg(ref w, m.Bytes, PassThrough.Instance))
                    : Write((ref MsgPackWriter w) => ComputePacker.PackArg<object?>(ref w, One(values), null));
#else
                return One(values) is Marshalled m
                    ? Write((ref MsgPackWriter w) => ComputePacker.PackArgOrResult(ref w, m.Bytes, PassThrough.Instance))
                    : Write((ref MsgPackWriter w) => ComputePacker.PackArgOrResult<object?>(ref w, One(values), null));
#endif
            case "table-row":
            {
                var cols = columns ?? throw new SkipException("table-row without columns");
                Schema schema = RowSchema(cols, values);
                var tuple = new IgniteTuple();
                for (int i = 0; i < values.Count; i++)
                {
                    if (values[i] is not NoValue)
                    {
                        tuple[ColumnName(i)] = values[i];
                    }
                }
                return Write((ref MsgPackWriter w) => TupleSerializerHandler.Instance.Write(ref w, schema, tuple));
            }
            default:
                throw new SkipException($"format {format} is not claimed");
        }
    }

    public static List<object?> Decode(string format, byte[] bytes, IReadOnlyList<ColumnType>? columns)
    {
        var result = new List<object?>();
        switch (format)
        {
            case "binary-tuple":
            {
                var cols = columns ?? throw new SkipException("binary-tuple without columns");
                var reader = new BinaryTupleReader(bytes, cols.Count);
                for (int i = 0; i < cols.Count; i++)
                {
                    result.Add(reader.GetObject(i, cols[i]));
                }
                break;
            }
            case "object":
            {
                var r = new MsgPackReader(bytes);
                result.Add(r.ReadObjectFromBinaryTuple());
                break;
            }
            case "object-array":
                throw new SkipException("the .NET client has no object-array reader: it only writes them (Sql arguments, MsgPackWriter.WriteObjectCollectionWithCountAsBinaryTuple)");
            case "collection":
            {
#if IGNITE_3_0
                var (items, count) = ReceiverResults30(new MsgPackReader(bytes));
#else
                var (items, count) = StreamerReceiverSerializer.ReadReceiverResults<object?>(new MsgPackReader(bytes), null);
#endif
                for (int i = 0; i < count; i++)
                {
                    result.Add(items![i]);
                }
                if (items != null && items.Length > 0)
                {
                    ArrayPool<object?>.Shared.Return(items);
                }
                break;
            }
            case "compute-arg":
            {
                var r = new MsgPackReader(bytes);
#if IGNITE_3_0
                object? value = ComputePacker.UnpackResult<object?>(ref r, PassThroughObject.Instance);
#else
                object? value = ComputePacker.UnpackArgOrResult<object?>(ref r, PassThroughObject.Instance);
#endif
                result.Add(value is IIgniteTuple ? throw new SkipException("kind 1 (TUPLE, an inline-schema tuple) is not modelled by the corpus") : value);
                break;
            }
            case "table-row":
            {
                // The client never reads a row with its no-value set (rows it receives are bare tuples): MsgPackReader
                // has no ext reader, so its Skip passes over the BITMASK, then the client's row reader reads the tuple.
                var cols = columns ?? throw new SkipException("table-row without columns");
                Schema schema = RowSchema(cols, null);
                var r = new MsgPackReader(bytes);
                r.Skip();
                IIgniteTuple row = TupleSerializerHandler.Instance.Read(ref r, schema);
                for (int i = 0; i < cols.Count; i++)
                {
                    result.Add(row[i]);
                }
                break;
            }
            default:
                throw new SkipException($"format {format} is not claimed");
        }
        return result;
    }

    delegate void WriteAction(ref MsgPackWriter w);

#if IGNITE_3_0
    delegate (object?[]? Items, int Count) ReadResults(MsgPackReader reader);

    /// <summary>
    /// 3.0.0 reads the receiver's results in a local function of DataStreamerWithReceiver.SendBatchAsync (compiled as a
    /// static method "&lt;SendBatchAsync&gt;g__Read|..."): the adapter calls that method itself, through a delegate.
    /// </summary>
    static readonly ReadResults ReceiverResults30 = FindReceiverResults30();

    static ReadResults FindReceiverResults30()
    {
        foreach (var m in typeof(DataStreamerWithReceiver).GetMethods(System.Reflection.BindingFlags.Static | System.Reflection.BindingFlags.NonPublic))
        {
            if (m.Name.StartsWith("<SendBatchAsync>g__Read|", StringComparison.Ordinal) && m.IsGenericMethodDefinition)
            {
                return m.MakeGenericMethod(typeof(object)).CreateDelegate<ReadResults>();
            }
        }
        throw new MissingMethodException("DataStreamerWithReceiver.SendBatchAsync's local function Read");
    }
#endif

    static byte[] Write(WriteAction write)
    {
        using var buf = new PooledArrayBuffer();
        var w = buf.MessageWriter;
        write(ref w);
        return buf.GetWrittenMemory().ToArray();
    }

    static object? One(IReadOnlyList<object?> values) =>
        values.Count == 1 ? values[0] : throw new SkipException($"format holds one value, the request has {values.Count}");

    /// <summary>A DECIMAL column's scale is the value's own, so the writer stores the pair as given (spec.md 6.2.1).</summary>
    static int ScaleOf(object? value) => value is BigDecimal d ? d.Scale : 0;

    static string ColumnName(int i) => "C" + i;

    /// <summary>
    /// A schema of nullable value columns C0..Cn-1 of the request's types (no key column: a key column without a value is
    /// refused before any byte is written). Schema.CreateInstance is the client's own constructor.
    /// </summary>
    static Schema RowSchema(IReadOnlyList<ColumnType> cols, IReadOnlyList<object?>? values)
    {
        var columns = new Column[cols.Count];
        for (int i = 0; i < cols.Count; i++)
        {
            columns[i] = new Column(ColumnName(i), cols[i], IsNullable: true, KeyIndex: -1, ColocationIndex: -1, SchemaIndex: i,
                Scale: values == null ? 0 : ScaleOf(values[i]), Precision: Nanos);
        }
        return Schema.CreateInstance(0, 0, columns);
    }

    /// <summary>The user marshaller of a MARSHALLED value: its bytes as they are.</summary>
    sealed class PassThrough : IMarshaller<byte[]>
    {
        public static readonly PassThrough Instance = new();
        public void Marshal(byte[] obj, IBufferWriter<byte> writer) => writer.Write(obj);
        public byte[] Unmarshal(ReadOnlySpan<byte> bytes) => bytes.ToArray();
    }

    /// <summary>The marshaller given to the reader, so that kind 2 comes back as its bytes.</summary>
    sealed class PassThroughObject : IMarshaller<object?>
    {
        public static readonly PassThroughObject Instance = new();
        public void Marshal(object? obj, IBufferWriter<byte> writer) => throw new NotSupportedException();
        public object? Unmarshal(ReadOnlySpan<byte> bytes) => new Marshalled(bytes.ToArray());
    }
}
