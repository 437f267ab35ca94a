import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.Period;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.UUID;
import org.apache.ignite.internal.binarytuple.BinaryTupleBuilder;
import org.apache.ignite.internal.binarytuple.BinaryTupleFormatException;
import org.apache.ignite.internal.binarytuple.BinaryTupleReader;
import org.apache.ignite.internal.client.proto.ClientComputeJobPacker;
import org.apache.ignite.internal.client.proto.ClientMessageCommon;
import org.apache.ignite.internal.client.proto.ClientMessagePacker;
import org.apache.ignite.internal.client.proto.ClientMessageUnpacker;
import org.apache.ignite.internal.client.proto.ClientMsgPackType;
import org.apache.ignite.lang.IgniteException;
import org.msgpack.core.ExtensionTypeHeader;
import org.msgpack.core.MessageFormat;
import org.msgpack.core.MessageNeverUsedFormatException;
import org.msgpack.core.MessageSizeException;
import org.msgpack.core.MessageTypeException;

/**
 * Runner-protocol adapter over the Java client's own wire code (apache/ignite-3 client-common and binary-tuple,
 * compiled unmodified from the ref in IGNITE_REF). Every byte is read and written by ClientMessagePacker,
 * ClientMessageUnpacker, BinaryTupleBuilder, BinaryTupleReader, ClientComputeJob(Un)Packer and
 * StreamerReceiverSerializer; this class only maps typed values to and from the Java objects those take and give,
 * and client exceptions to error classes (ERROR TABLE below, quoted in README.md).
 */
public final class IgniteJavaRunner {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    /** A request the client's API cannot express: answered `skipped` with the reason. */
    static final class Skip extends RuntimeException {
        Skip(String why) {
            super(why, null, false, false);
        }
    }

    /** An answered error class. */
    static final class Reject extends RuntimeException {
        final String cls;

        Reject(String cls, String msg) {
            super(msg, null, false, false);
            this.cls = cls;
        }
    }

    private IgniteJavaRunner() {
    }

    public static void main(String[] args) throws Exception {
        StreamReadConstraints.overrideDefaultStreamReadConstraints(
                StreamReadConstraints.builder().maxNestingDepth(100_000).maxStringLength(Integer.MAX_VALUE).build());
        var in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8), 1 << 16);
        var out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), false, StandardCharsets.UTF_8);
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) {
                continue;
            }
            JsonNode req;
            try {
                req = JSON.readTree(line);
            } catch (Exception e) {
                System.err.println("ignite-java: unreadable request: " + e);
                long id = scanId(line);
                if (id < 0) {
                    continue;
                }
                ObjectNode r = NODES.objectNode();
                r.put("id", id);
                r.put("skipped", "adapter could not parse the request JSON: " + e.getClass().getSimpleName());
                out.println(JSON.writeValueAsString(r));
                out.flush();
                continue;
            }
            String cmd = req.path("cmd").asText();
            if (cmd.equals("stop")) {
                break;
            }
            ObjectNode resp = cmd.equals("start") ? start() : handle(req);
            out.println(JSON.writeValueAsString(resp));
            if (!in.ready()) {
                out.flush();
            }
        }
        out.flush();
    }

    private static long scanId(String line) {
        int i = line.indexOf("\"id\"");
        if (i < 0) {
            return -1;
        }
        i = line.indexOf(':', i) + 1;
        while (i < line.length() && line.charAt(i) == ' ') {
            i++;
        }
        int j = i;
        while (j < line.length() && Character.isDigit(line.charAt(j))) {
            j++;
        }
        return j > i ? Long.parseLong(line.substring(i, j)) : -1;
    }

    private static ObjectNode start() {
        ObjectNode r = NODES.objectNode();
        r.put("protocol", 1);
        r.put("name", "ignite-java");
        r.put("language", "java");
        r.put("library", "apache/ignite-3 client-common + binary-tuple (Java client wire code)");
        r.put("library_version", BuildInfo.REF + " (" + BuildInfo.COMMIT + ")");
        r.putArray("corpus_majors").add(1);
        ObjectNode caps = r.putObject("capabilities");
        caps.putArray("ops").add("encode").add("decode");
        caps.putArray("eras").add("msgpack").add("3.0");
        ArrayNode f = caps.putArray("formats");
        for (String s : new String[] {"msgpack", "binary-tuple", "table-row", "object", "object-array", "collection",
                "compute-arg"}) {
            f.add(s);
        }
        if (coarseClassesKnown()) {
            // "Unsupported offset table size" is one message for a size-class-3 header and a negative 4-byte offset.
            caps.putArray("coarse_classes").add("malformed");
        }
        return r;
    }

    /**
     * capabilities.coarse_classes (branch harness-granularity) is declared only when the harness's protocol schema has
     * it: an older harness refuses an unknown capability member at start.
     */
    private static boolean coarseClassesKnown() {
        try {
            return new String(java.nio.file.Files.readAllBytes(java.nio.file.Path.of("../../schema/protocol.schema.json")),
                    StandardCharsets.UTF_8).contains("\"coarse_classes\"");
        } catch (java.io.IOException e) {
            return false;
        }
    }

    private static ObjectNode handle(JsonNode req) {
        ObjectNode r = NODES.objectNode();
        r.set("id", req.get("id"));
        try {
            String cmd = req.path("cmd").asText();
            String era = req.path("era").asText();
            String format = req.has("format") ? req.get("format").asText() : "msgpack";
            if (cmd.equals("encode")) {
                r.put("hex", hex(encode(era, format, req)));
            } else if (cmd.equals("decode")) {
                r.set("values", decode(era, format, req.get("columns"), unhex(req.get("hex").asText())));
            } else {
                throw new Skip("unknown cmd " + cmd);
            }
        } catch (Skip e) {
            r.removeAll();
            r.set("id", req.get("id"));
            r.put("skipped", e.getMessage());
        } catch (Reject e) {
            r.removeAll();
            r.set("id", req.get("id"));
            ObjectNode err = r.putObject("error");
            err.put("class", e.cls);
            err.put("message", e.getMessage());
        } catch (Throwable t) {
            r.removeAll();
            r.set("id", req.get("id"));
            String cls = errorClass(t, req.path("cmd").asText(), req.has("format") ? req.get("format").asText() : "msgpack");
            if (cls == null) {
                r.put("skipped", "client threw " + t.getClass().getName() + ": " + t.getMessage() + at(t));
            } else {
                ObjectNode err = r.putObject("error");
                err.put("class", cls);
                err.put("message", t.getClass().getName() + ": " + t.getMessage());
            }
        }
        return r;
    }

    /** Where it was thrown, and the client's own frame it came through (its upstream file and line). */
    private static String at(Throwable t) {
        StackTraceElement[] st = t.getStackTrace();
        if (st.length == 0) {
            return "";
        }
        String s = " at " + st[0];
        for (StackTraceElement e : st) {
            if (e.getClassName().startsWith("org.apache.ignite.")) {
                return e == st[0] ? s : s + " via " + e;
            }
        }
        return s;
    }

    // ---------------------------------------------------------------------------------------------------------
    // ERROR TABLE: the one judgement of this adapter (quoted in README.md). Keyed by exception type and message.
    // Anything not listed (IndexOutOfBoundsException, NegativeArraySizeException, IllegalArgumentException from a
    // JDK collection, NullPointerException, ...) is not a deliberate rejection: it is answered `skipped`.
    // ---------------------------------------------------------------------------------------------------------
    static String errorClass(Throwable t, String cmd, String format) {
        String m = String.valueOf(t.getMessage());
        boolean wrapped = !format.equals("msgpack");
        if (t instanceof MessageNeverUsedFormatException) {
            return "malformed.reserved";                       // ClientMessageUnpacker.unexpected: 0xC1
        }
        if (t instanceof MessageTypeException) {
            // ClientMessageUnpacker.unexpected / unpackUuid: a value of another MessagePack type than the form needs.
            return wrapped ? "invalid.tuple-type" : null;
        }
        if (t instanceof MessageSizeException) {
            if (m.startsWith("Expected 16 bytes for UUID")) {
                return "invalid.ext-length";                   // unpackUuid
            }
            if (((MessageSizeException) t).getSize() > Integer.MAX_VALUE) {
                // readLength32 (overflowU32Size): a declared str/bin/ext length of 2^31 or more, more than any input
                // the client can hold (a frame is at most 2^31 - 1 bytes), so the input is cut.
                return "malformed.truncated";
            }
            return null;
        }
        if (t instanceof BinaryTupleFormatException) {
            if (m.startsWith("Invalid length for a tuple element")) {
                return "invalid.tuple-length";                 // BinaryTupleParser *Value length switches
            }
            if (m.equals("Corrupted offset table")) {
                return "malformed.tuple-offsets";              // BinaryTupleParser.fetch / parse
            }
            if (m.equals("Unsupported offset table size")) {
                return "malformed";                            // size class 3 (header) or 4-byte offset >= 2^31
            }
            if (m.startsWith("Decimal scale is too")) {
                return "unrepresentable";                      // BinaryTupleBuilder.appendDecimalNotNull
            }
            return null;
        }
        if (t instanceof IgniteException) {
            if (m.contains("Invalid column type id") || m.contains("Unsupported type")) {
                return cmd.equals("encode") ? "unrepresentable" : "invalid.tuple-type";
            }
            if (m.contains("Unsupported compute job type id")) {
                return "invalid.tuple-type";                   // ClientComputeJobUnpacker
            }
            return null;
        }
        if (t instanceof IllegalArgumentException && m.startsWith("All items must have the same type")
                && cmd.equals("encode")) {
            return "unrepresentable";                          // StreamerReceiverSerializer.appendCollectionToBinaryTuple
        }
        if (t instanceof DateTimeException && cmd.equals("decode")) {
            return "invalid.tuple-value";                      // LocalDate.of / LocalTime.of / Instant in the getters
        }
        if (t instanceof ArithmeticException && m.equals("Rounding necessary") && cmd.equals("decode")) {
            return "invalid.tuple-value";                      // decimalValue: setScale(scale, UNNECESSARY)
        }
        if (t instanceof ArithmeticException && m.equals("long overflow") && cmd.equals("decode")) {
            return "invalid.tuple-value";                      // Duration.ofSeconds(s, n): Math.addExact, out of range
        }
        return null;
    }

    // ---------------------------------------------------------------------------------------------------------
    // encode
    // ---------------------------------------------------------------------------------------------------------
    private static byte[] encode(String era, String format, JsonNode req) {
        JsonNode values = req.get("values");
        if (values == null) {
            throw new Skip("no values (frames are not claimed)");
        }
        ClientMessagePacker p = new ClientMessagePacker(Unpooled.buffer(64));
        try {
            switch (format) {
                case "msgpack":
                    for (JsonNode v : values) {
                        packValue(p, era, v);
                    }
                    break;
                case "binary-tuple":
                    return tupleBytes(buildTuple(req.get("columns"), values, null));
                case "table-row": {
                    BitSet noValue = new BitSet();
                    BinaryTupleBuilder b = buildTuple(req.get("columns"), values, noValue);
                    p.packBinaryTuple(b, noValue);
                    break;
                }
                case "object":
                    p.packObjectAsBinaryTuple(object(only(values)));
                    break;
                case "object-array": {
                    Object[] arr = new Object[values.size()];
                    for (int i = 0; i < arr.length; i++) {
                        arr[i] = object(values.get(i));
                    }
                    p.packObjectArrayAsBinaryTuple(arr);
                    break;
                }
                case "collection": {
                    List<Object> items = new ArrayList<>();
                    for (JsonNode v : values) {
                        items.add(object(v));
                    }
                    CollectionCompat.packCollection(p, items);
                    break;
                }
                case "compute-arg": {
                    JsonNode v = only(values);
                    if (v.path("type").asText().equals("MARSHALLED")) {
                        ClientComputeJobPacker.packJobResult(unhex(v.get("hex").asText()), new PassThroughMarshaller(), p);
                    } else {
                        ClientComputeJobPacker.packJobResult(object(v), null, p);
                    }
                    break;
                }
                default:
                    throw new Skip("format " + format + " not claimed");
            }
            // The packer reserves the frame's length prefix (ClientMessageCommon.HEADER_SIZE) in front of the message.
            ByteBuf buf = p.getBuffer();
            byte[] outBytes = new byte[buf.writerIndex() - ClientMessageCommon.HEADER_SIZE];
            buf.getBytes(ClientMessageCommon.HEADER_SIZE, outBytes);
            return outBytes;
        } finally {
            p.close();
        }
    }

    private static JsonNode only(JsonNode values) {
        if (values.size() != 1) {
            throw new Skip("format holds exactly one value, got " + values.size());
        }
        return values.get(0);
    }

    private static void packValue(ClientMessagePacker p, String era, JsonNode v) {
        String type = v.path("type").asText();
        switch (type) {
            case "nil":
                p.packNil();
                return;
            case "bool":
                p.packBoolean(v.get("value").asBoolean());
                return;
            case "int": {
                BigInteger i = new BigInteger(v.get("value").asText());
                if (i.bitLength() > 63) {
                    throw new Skip("ClientMessagePacker has no writer for integers outside int64 (packLong(long) only)");
                }
                p.packLong(i.longValue());
                return;
            }
            case "float32":
                p.packFloat(Float.intBitsToFloat(Integer.parseUnsignedInt(v.get("bits").asText(), 16)));
                return;
            case "float64":
                p.packDouble(Double.longBitsToDouble(Long.parseUnsignedLong(v.get("bits").asText(), 16)));
                return;
            case "str":
                p.packString(v.get("value").asText());
                return;
            case "bin":
                p.packBinary(unhex(v.get("hex").asText()));
                return;
            case "ext": {
                JsonNode c = v.get("code");
                int code = c.canConvertToInt() ? c.intValue() : Integer.MAX_VALUE;
                if (code < -128 || code > 127) {
                    throw new Skip("ClientMessagePacker.packExtensionTypeHeader takes a byte code; " + code + " is not one");
                }
                byte[] payload = unhex(v.get("hex").asText());
                p.packExtensionTypeHeader((byte) code, payload.length);
                p.writePayload(payload);
                return;
            }
            case "array":
            case "map":
                throw new Skip("ClientMessagePacker has no array or map header writer");
            case "uuid":
                if (era.equals("3.0") && v.path("era").asText().equals("3.0")) {
                    p.packUuid(UUID.fromString(v.get("value").asText()));
                    return;
                }
                break;
            case "bitmask":
                if (era.equals("3.0") && v.path("era").asText().equals("3.0")) {
                    BitSet bs = new BitSet();
                    for (JsonNode b : v.get("bits")) {
                        bs.set(b.asInt());
                    }
                    p.packBitSet(bs);
                    return;
                }
                break;
            default:
                break;
        }
        throw new Skip("ClientMessagePacker has no writer for " + type + " of era " + v.path("era").asText()
                + " in era " + era);
    }

    private static BinaryTupleBuilder buildTuple(JsonNode columns, JsonNode values, BitSet noValue) {
        if (columns == null || columns.size() != values.size()) {
            throw new Skip("columns missing or not one per value");
        }
        BinaryTupleBuilder b = new BinaryTupleBuilder(values.size());
        for (int i = 0; i < values.size(); i++) {
            JsonNode v = values.get(i);
            String col = columns.get(i).asText();
            String t = v.path("type").asText();
            if (t.equals("NULL")) {
                b.appendNull();
                continue;
            }
            if (t.equals("NO_VALUE")) {
                if (noValue == null) {
                    throw new Skip("NO_VALUE outside a table row");
                }
                noValue.set(i);
                b.appendNull();
                continue;
            }
            if (!t.equals(col)) {
                throw new Skip("element type " + t + " in a column of type " + col);
            }
            appendElement(b, v);
        }
        return b;
    }

    /** One element by its column type, through the builder's typed append of that type. */
    private static void appendElement(BinaryTupleBuilder b, JsonNode v) {
        Object o = object(v);
        switch (v.get("type").asText()) {
            case "BOOLEAN": b.appendBoolean((Boolean) o); break;
            case "INT8": b.appendByte((Byte) o); break;
            case "INT16": b.appendShort((Short) o); break;
            case "INT32": b.appendInt((Integer) o); break;
            case "INT64": b.appendLong((Long) o); break;
            case "FLOAT": b.appendFloat((Float) o); break;
            case "DOUBLE": b.appendDouble((Double) o); break;
            case "DECIMAL": b.appendDecimal((BigDecimal) o, ((BigDecimal) o).scale()); break;
            case "DATE": b.appendDate((LocalDate) o); break;
            case "TIME": b.appendTime((LocalTime) o); break;
            case "DATETIME": b.appendDateTime((LocalDateTime) o); break;
            case "TIMESTAMP": b.appendTimestamp((Instant) o); break;
            case "DURATION": b.appendDuration((Duration) o); break;
            case "UUID": b.appendUuid((UUID) o); break;
            case "STRING": b.appendString((String) o); break;
            case "BYTE_ARRAY": b.appendBytes((byte[]) o); break;
            case "PERIOD": b.appendPeriod((Period) o); break;
            default: throw new Skip("no builder append for element type " + v.get("type").asText());
        }
    }

    private static byte[] tupleBytes(BinaryTupleBuilder b) {
        ByteBuffer bb = b.build();
        byte[] outBytes = new byte[bb.remaining()];
        bb.get(outBytes);
        return outBytes;
    }

    /** The Java object the client's API takes for a typed element (only java.lang / java.time / java.math types). */
    private static Object object(JsonNode v) {
        String t = v.path("type").asText();
        try {
            switch (t) {
                case "NULL": return null;
                case "BOOLEAN": return v.get("value").asBoolean();
                case "INT8": return new BigInteger(v.get("value").asText()).byteValueExact();
                case "INT16": return new BigInteger(v.get("value").asText()).shortValueExact();
                case "INT32": return new BigInteger(v.get("value").asText()).intValueExact();
                case "INT64": return new BigInteger(v.get("value").asText()).longValueExact();
                case "FLOAT": return Float.intBitsToFloat(Integer.parseUnsignedInt(v.get("bits").asText(), 16));
                case "DOUBLE": return Double.longBitsToDouble(Long.parseUnsignedLong(v.get("bits").asText(), 16));
                case "DECIMAL": return new BigDecimal(new BigInteger(v.get("unscaled").asText()), intField(v, "scale"));
                case "DATE": return LocalDate.of(intField(v, "year"), intField(v, "month"), intField(v, "day"));
                case "TIME": return LocalTime.of(intField(v, "hour"), intField(v, "minute"), intField(v, "second"),
                        intField(v, "nano"));
                case "DATETIME": return LocalDateTime.of(intField(v, "year"), intField(v, "month"), intField(v, "day"),
                        intField(v, "hour"), intField(v, "minute"), intField(v, "second"), intField(v, "nano"));
                case "TIMESTAMP": return Instant.ofEpochSecond(new BigInteger(v.get("seconds").asText()).longValueExact(),
                        nanoField(v));
                case "DURATION": return Duration.ofSeconds(new BigInteger(v.get("seconds").asText()).longValueExact(),
                        nanoField(v));
                case "UUID": return UUID.fromString(v.get("value").asText());
                case "STRING": return v.get("value").asText();
                case "BYTE_ARRAY": return unhex(v.get("hex").asText());
                case "PERIOD": return Period.of(intField(v, "years"), intField(v, "months"), intField(v, "days"));
                default: break;
            }
        } catch (ArithmeticException | DateTimeException e) {
            throw new Skip("the client's Java type for " + t + " cannot hold the value: " + e.getMessage());
        }
        throw new Skip("no Java type of the client for element type " + t);
    }

    /** An int field of the notation, exactly (JSON numbers beyond int would wrap in asInt()). */
    private static int intField(JsonNode v, String name) {
        JsonNode n = v.get(name);
        if (n == null || !n.canConvertToInt() || !n.isIntegralNumber()) {
            throw new Skip("the client's Java type for " + v.path("type").asText() + " cannot hold " + name + " = " + n);
        }
        return n.intValue();
    }

    private static long nanoField(JsonNode v) {
        long n = v.get("nano").asLong();
        if (n < 0 || n > 999_999_999) {
            // Instant.ofEpochSecond / Duration.ofSeconds would normalise: the value is not one java.time holds as given.
            throw new Skip("java.time normalises nanos outside 0..999999999 (" + n + "); the value has no Java form");
        }
        return n;
    }

    // ---------------------------------------------------------------------------------------------------------
    // decode
    // ---------------------------------------------------------------------------------------------------------
    private static ArrayNode decode(String era, String format, JsonNode columns, byte[] bytes) {
        ArrayNode out = NODES.arrayNode();
        switch (format) {
            case "msgpack": {
                // The adapter holds the buffer it gives the unpacker, so it sees how far the client's reads got.
                ByteBuf buf = Unpooled.wrappedBuffer(bytes);
                ClientMessageUnpacker u = new ClientMessageUnpacker(buf);
                while (buf.isReadable()) {
                    out.add(unpackValue(u, buf, era));
                }
                return out;
            }
            case "binary-tuple": {
                if (columns == null) {
                    throw new Skip("no columns");
                }
                BinaryTupleReader r = new BinaryTupleReader(columns.size(),
                        ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN));
                for (int i = 0; i < columns.size(); i++) {
                    out.add(readElement(r, i, columns.get(i).asText()));
                }
                return out;
            }
            case "table-row": {
                if (columns == null) {
                    throw new Skip("no columns");
                }
                ClientMessageUnpacker u = new ClientMessageUnpacker(Unpooled.wrappedBuffer(bytes));
                BitSet noValue = u.unpackBitSet();
                BinaryTupleReader r = new BinaryTupleReader(columns.size(), u.readBinary());
                for (int i = 0; i < columns.size(); i++) {
                    if (noValue.get(i) && r.hasNullValue(i)) {
                        out.add(NODES.objectNode().put("type", "NO_VALUE"));
                    } else {
                        out.add(readElement(r, i, columns.get(i).asText()));
                    }
                }
                return out;
            }
            case "object": {
                ClientMessageUnpacker u = new ClientMessageUnpacker(Unpooled.wrappedBuffer(bytes));
                out.add(element(u.unpackObjectFromBinaryTuple()));
                return out;
            }
            case "object-array": {
                ClientMessageUnpacker u = new ClientMessageUnpacker(Unpooled.wrappedBuffer(bytes));
                Object[] arr = u.unpackObjectArrayFromBinaryTuple();
                if (arr == null) {
                    throw new Skip("unpackObjectArrayFromBinaryTuple returned a null array (no notation for it)");
                }
                for (Object o : arr) {
                    out.add(element(o));
                }
                return out;
            }
            case "collection": {
                ClientMessageUnpacker u = new ClientMessageUnpacker(Unpooled.wrappedBuffer(bytes));
                List<Object> items = CollectionCompat.unpackCollection(u);
                if (items != null) {
                    for (Object o : items) {
                        out.add(element(o));
                    }
                }
                return out;
            }
            case "compute-arg": {
                ClientMessageUnpacker u = new ClientMessageUnpacker(Unpooled.wrappedBuffer(bytes));
                Object[] res = ComputeCompat.unpackCompute(u);
                if (res[0] == Boolean.TRUE) {
                    out.add(NODES.objectNode().put("type", "MARSHALLED").put("hex", hex((byte[]) res[1])));
                } else {
                    out.add(element(res[1]));
                }
                return out;
            }
            default:
                throw new Skip("format " + format + " not claimed");
        }
    }

    private static ObjectNode unpackValue(ClientMessageUnpacker u, ByteBuf buf, String era) {
        int at = buf.readerIndex();
        byte code = buf.getByte(at);
        MessageFormat f = MessageFormat.valueOf(code);
        ObjectNode n = NODES.objectNode();
        if (f == MessageFormat.NEVER_USED) {
            // 0xC1 has no value type: let the client's reader meet it (unexpected(): MessageNeverUsedFormatException).
            u.unpackNil();
            throw new Skip("unpackNil accepted 0xc1");
        }
        switch (f.getValueType()) {
            case NIL:
                u.unpackNil();
                n.put("type", "nil");
                return n;
            case BOOLEAN:
                n.put("type", "bool");
                n.put("value", u.unpackBoolean());
                return n;
            case INTEGER:
                n.put("type", "int");
                n.put("value", Long.toString(u.unpackLong()));
                return n;
            case FLOAT:
                if (f == MessageFormat.FLOAT32) {
                    n.put("type", "float32");
                    n.put("bits", String.format("%08x", Float.floatToRawIntBits(u.unpackFloat())));
                } else {
                    n.put("type", "float64");
                    n.put("bits", String.format("%016x", Double.doubleToRawLongBits(u.unpackDouble())));
                }
                return n;
            case STRING:
                n.put("type", "str");
                n.put("value", u.unpackString());
                return n;
            case BINARY:
                n.put("type", "bin");
                n.put("hex", hex(u.readBinary()));
                return n;
            case ARRAY:
            case MAP:
                throw new Skip("ClientMessageUnpacker has no array or map header reader");
            case EXTENSION: {
                if (era.equals("3.0")) {
                    // Peek the code through the client's own header reader, then let the typed reader read it all.
                    byte type = u.unpackExtensionTypeHeader().getType();
                    buf.readerIndex(at);
                    if (type == ClientMsgPackType.UUID) {
                        n.put("type", "uuid");
                        n.put("era", "3.0");
                        n.put("value", u.unpackUuid().toString());
                        return n;
                    }
                    if (type == ClientMsgPackType.BITMASK) {
                        BitSet bs = u.unpackBitSet();
                        n.put("type", "bitmask");
                        n.put("era", "3.0");
                        ArrayNode bits = n.putArray("bits");
                        for (int i = bs.nextSetBit(0); i >= 0; i = bs.nextSetBit(i + 1)) {
                            bits.add(i);
                        }
                        return n;
                    }
                }
                ExtensionTypeHeader h = u.unpackExtensionTypeHeader();
                n.put("type", "ext");
                n.put("code", h.getType());
                n.put("hex", hex(u.readPayload(h.getLength())));
                return n;
            }
            default:
                throw new Skip("no value type for format " + f);
        }
    }

    private static ObjectNode readElement(BinaryTupleReader r, int i, String col) {
        if (r.hasNullValue(i)) {
            return NODES.objectNode().put("type", "NULL");
        }
        switch (col) {
            case "BOOLEAN": return element(r.booleanValue(i));
            case "INT8": return element(r.byteValue(i));
            case "INT16": return element(r.shortValue(i));
            case "INT32": return element(r.intValue(i));
            case "INT64": return element(r.longValue(i));
            case "FLOAT": return element(r.floatValue(i));
            case "DOUBLE": return element(r.doubleValue(i));
            case "DECIMAL": return element(r.decimalValue(i, Integer.MIN_VALUE));
            case "DATE": return element(r.dateValue(i));
            case "TIME": return element(r.timeValue(i));
            case "DATETIME": return element(r.dateTimeValue(i));
            case "TIMESTAMP": return element(r.timestampValue(i));
            case "DURATION": return element(r.durationValue(i));
            case "UUID": return element(r.uuidValue(i));
            case "STRING": return element(r.stringValue(i));
            case "BYTE_ARRAY": return element(r.bytesValue(i));
            case "PERIOD": return element(r.periodValue(i));
            default: throw new Skip("no BinaryTupleReader getter for column type " + col);
        }
    }

    /** The typed element for a Java object the client returned. */
    private static ObjectNode element(Object o) {
        ObjectNode n = NODES.objectNode();
        if (o == null) {
            return n.put("type", "NULL");
        }
        if (o instanceof Boolean) {
            return n.put("type", "BOOLEAN").put("value", (Boolean) o);
        }
        if (o instanceof Byte) {
            return n.put("type", "INT8").put("value", o.toString());
        }
        if (o instanceof Short) {
            return n.put("type", "INT16").put("value", o.toString());
        }
        if (o instanceof Integer) {
            return n.put("type", "INT32").put("value", o.toString());
        }
        if (o instanceof Long) {
            return n.put("type", "INT64").put("value", o.toString());
        }
        if (o instanceof Float) {
            return n.put("type", "FLOAT").put("bits", String.format("%08x", Float.floatToRawIntBits((Float) o)));
        }
        if (o instanceof Double) {
            return n.put("type", "DOUBLE").put("bits", String.format("%016x", Double.doubleToRawLongBits((Double) o)));
        }
        if (o instanceof BigDecimal) {
            BigDecimal d = (BigDecimal) o;
            return n.put("type", "DECIMAL").put("unscaled", d.unscaledValue().toString()).put("scale", d.scale());
        }
        if (o instanceof LocalDate) {
            LocalDate d = (LocalDate) o;
            return n.put("type", "DATE").put("year", d.getYear()).put("month", d.getMonthValue()).put("day", d.getDayOfMonth());
        }
        if (o instanceof LocalTime) {
            LocalTime t = (LocalTime) o;
            return n.put("type", "TIME").put("hour", t.getHour()).put("minute", t.getMinute()).put("second", t.getSecond())
                    .put("nano", t.getNano());
        }
        if (o instanceof LocalDateTime) {
            LocalDateTime t = (LocalDateTime) o;
            return n.put("type", "DATETIME").put("year", t.getYear()).put("month", t.getMonthValue())
                    .put("day", t.getDayOfMonth()).put("hour", t.getHour()).put("minute", t.getMinute())
                    .put("second", t.getSecond()).put("nano", t.getNano());
        }
        if (o instanceof Instant) {
            Instant t = (Instant) o;
            return n.put("type", "TIMESTAMP").put("seconds", Long.toString(t.getEpochSecond())).put("nano", t.getNano());
        }
        if (o instanceof Duration) {
            Duration t = (Duration) o;
            return n.put("type", "DURATION").put("seconds", Long.toString(t.getSeconds())).put("nano", t.getNano());
        }
        if (o instanceof UUID) {
            return n.put("type", "UUID").put("value", o.toString());
        }
        if (o instanceof String) {
            return n.put("type", "STRING").put("value", (String) o);
        }
        if (o instanceof byte[]) {
            return n.put("type", "BYTE_ARRAY").put("hex", hex((byte[]) o));
        }
        if (o instanceof Period) {
            Period p = (Period) o;
            return n.put("type", "PERIOD").put("years", p.getYears()).put("months", p.getMonths()).put("days", p.getDays());
        }
        throw new Skip("the client returned a " + o.getClass().getName() + ", which has no element type");
    }

    // ---------------------------------------------------------------------------------------------------------
    static String hex(byte[] b) {
        char[] c = new char[b.length * 2];
        final String digits = "0123456789abcdef";
        for (int i = 0; i < b.length; i++) {
            c[2 * i] = digits.charAt((b[i] >> 4) & 15);
            c[2 * i + 1] = digits.charAt(b[i] & 15);
        }
        return new String(c);
    }

    static byte[] unhex(String s) {
        byte[] b = new byte[s.length() / 2];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
        }
        return b;
    }
}
