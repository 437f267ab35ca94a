import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import org.msgpack.core.ExtensionTypeHeader;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessageFormat;
import org.msgpack.core.MessageInsufficientBufferException;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessageSizeException;
import org.msgpack.core.MessageUnpacker;

/**
 * Typed value notation <-> MessagePack, on msgpack-core's streaming MessagePacker / MessageUnpacker.
 * Decoding goes format by format (getNextFormat), never through unpackValue(): unpackValue recurses without
 * a limit, pre-allocates Value[count] from a declared count and turns ext -1 into a timestamp.
 */
final class Codec {
    /** Deepest array/map nesting accepted (the suite's MP-DEPTH-LIMIT value); 10,000 levels overflow the stack. */
    static final int MAX_DEPTH = 512;

    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
    private static final BigInteger INT64_MIN = BigInteger.valueOf(Long.MIN_VALUE);
    private static final BigInteger UINT64_MAX = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);

    private final IgniteExt ignite;
    private final JsonText text = new JsonText(); // decode's, reused
    private final JsonText hex = new JsonText(); // a bin or ext payload's hex string, reused
    private final MessageBufferPacker packer = MessagePack.newDefaultBufferPacker(); // encode's, reused

    Codec(IgniteExt ignite) {
        this.ignite = ignite;
    }

    // ---------------------------------------------------------------- decode

    /**
     * Writes all top-level values of {@code input}, in order, into {@code text} as the JSON text of a list of
     * typed values: by a JsonGenerator as the input is read (no node per value).
     */
    void decodeText(byte[] input, String era, JsonText text) throws WireError, IOException {
        try (JsonGenerator out = Trees.FACTORY.createGenerator(text);
                MessageUnpacker in = MessagePack.newDefaultUnpacker(input)) {
            Reader reader = new Reader(in, input.length, era, out);
            out.writeStartArray();
            while (in.hasNext()) {
                reader.value(0);
            }
            out.writeEndArray();
        } catch (MessageInsufficientBufferException e) {
            throw WireError.truncated("input ends inside a value");
        } catch (MessageSizeException e) {
            // A 32-bit length or count above 2^31-1: more than any input this runner can be given.
            throw WireError.truncated("declared length or count above 2^31-1");
        }
    }

    /** The same values as nodes (the Binary Tuple formats read the few values around a tuple). */
    ArrayNode decode(byte[] input, String era) throws WireError, IOException {
        decodeText(input, era, text.reset());
        return (ArrayNode) Trees.read(Trees.FACTORY.createParser(text.chars(), 0, text.length()));
    }

    /** One decode pass: the unpacker plus what the bounds checks need. */
    private final class Reader {
        private final MessageUnpacker in;
        private final long inputLength;
        private final String era;
        private final JsonGenerator out;

        Reader(MessageUnpacker in, long inputLength, String era, JsonGenerator out) {
            this.in = in;
            this.inputLength = inputLength;
            this.era = era;
            this.out = out;
        }

        private long remaining() {
            return inputLength - in.getTotalReadBytes();
        }

        /** Refuses a declared size before anything is allocated or iterated for it. */
        private void need(long declaredCount, long bytesEach, String what) throws WireError {
            if (declaredCount < 0 || declaredCount > remaining() / bytesEach) {
                throw WireError.truncated(what + " declares " + declaredCount + " but only " + remaining()
                        + " bytes remain");
            }
        }

        /** A value whose containers are {@code depth} deep. */
        void value(int depth) throws IOException, WireError {
            MessageFormat format = in.getNextFormat();
            if (format == MessageFormat.NEVER_USED) { // getValueType() would throw
                throw new WireError("malformed.reserved", "0xc1 where a value starts");
            }
            switch (format.getValueType()) {
                case NIL:
                    in.unpackNil();
                    typed("nil");
                    break;
                case BOOLEAN:
                    boolean b = in.unpackBoolean();
                    typed("bool");
                    out.writeBooleanField("value", b);
                    break;
                case INTEGER:
                    // uint64 above int64 max: unpackLong throws, unpackBigInteger is exact.
                    String digits = format == MessageFormat.UINT64
                            ? in.unpackBigInteger().toString()
                            : Long.toString(in.unpackLong());
                    typed("int");
                    out.writeStringField("value", digits);
                    break;
                case FLOAT:
                    // unpackFloat keeps float32 as float (no widening), so NaN payloads survive.
                    if (format == MessageFormat.FLOAT32) {
                        String bits = Hex.of(Float.floatToRawIntBits(in.unpackFloat()), 8);
                        typed("float32");
                        out.writeStringField("bits", bits);
                    } else {
                        String bits = Hex.of(Double.doubleToRawLongBits(in.unpackDouble()), 16);
                        typed("float64");
                        out.writeStringField("bits", bits);
                    }
                    break;
                case STRING:
                    CharBuffer str = utf8Chars(payload(in.unpackRawStringHeader(), "str length"));
                    typed("str");
                    out.writeFieldName("value");
                    out.writeString(str.array(), str.arrayOffset() + str.position(), str.remaining()); // no String
                    break;
                case BINARY:
                    byte[] bin = payload(in.unpackBinaryHeader(), "bin length");
                    typed("bin");
                    hexField(bin);
                    break;
                case ARRAY:
                    array(depth + 1);
                    return;
                case MAP:
                    map(depth + 1);
                    return;
                case EXTENSION:
                    ext();
                    return;
                default:
                    throw new IllegalStateException("format " + format);
            }
            out.writeEndObject();
        }

        /** Opens the object of a typed value. */
        private void typed(String type) throws IOException {
            out.writeStartObject();
            out.writeStringField("type", type);
        }

        private void array(int depth) throws IOException, WireError {
            checkDepth(depth);
            int count = in.unpackArrayHeader();
            need(count, 1, "array");
            typed("array");
            out.writeArrayFieldStart("items");
            for (int i = 0; i < count; i++) {
                value(depth);
            }
            out.writeEndArray();
            out.writeEndObject();
        }

        private void map(int depth) throws IOException, WireError {
            checkDepth(depth);
            int count = in.unpackMapHeader();
            need(count, 2, "map");
            typed("map");
            out.writeArrayFieldStart("entries");
            for (int i = 0; i < count; i++) {
                out.writeStartArray();
                value(depth);
                value(depth);
                out.writeEndArray();
            }
            out.writeEndArray();
            out.writeEndObject();
        }

        private void checkDepth(int depth) throws WireError {
            if (depth > MAX_DEPTH) {
                throw new WireError("limit.depth", "nesting deeper than " + MAX_DEPTH);
            }
        }

        /**
         * The payload of a str/bin/ext whose header declared {@code length} bytes ({@code what}), checked first:
         * readPayload allocates it.
         */
        private byte[] payload(int length, String what) throws IOException, WireError {
            need(length, 1, what);
            return in.readPayload(length);
        }

        private void ext() throws IOException, WireError {
            // The header only: no timestamp conversion of code -1.
            ExtensionTypeHeader header = in.unpackExtensionTypeHeader();
            byte[] data = payload(header.getLength(), "ext length");
            JsonNode typedExt = ignite.decode(era, header.getType(), data);
            if (typedExt != null) {
                Trees.write(out, typedExt);
                return;
            }
            typed("ext");
            out.writeNumberField("code", (int) header.getType());
            hexField(data);
            out.writeEndObject();
        }

        /**
         * The "hex" field, its string written as a raw value (hex digits need no escaping): no String of it, and
         * not scanned for characters to escape, which for a big bin is most of a decode's time.
         */
        private void hexField(byte[] bytes) throws IOException {
            out.writeFieldName("hex");
            hex.reset().hexString(bytes).writeTo(out);
        }
    }

    /** Strict UTF-8 (overlong forms, surrogates, > U+10FFFF and bad continuations all rejected). */
    static String utf8(byte[] bytes) throws WireError {
        return utf8Chars(bytes).toString();
    }

    private static CharBuffer utf8Chars(byte[] bytes) throws WireError {
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes));
        } catch (CharacterCodingException e) {
            throw new WireError("invalid.utf8", "str payload is not UTF-8: " + e);
        }
    }

    static ObjectNode typed(String type) {
        return JSON.objectNode().put("type", type);
    }

    // ---------------------------------------------------------------- encode

    /**
     * The values written one after another, by one packer for every encode: a new packer would allocate its
     * 8 KiB buffer each time; this one's unused rest serves the next encode.
     */
    byte[] encode(JsonNode values) throws WireError, IOException {
        packer.clear(); // also drops what a refused value left behind
        for (JsonNode value : values) {
            write(packer, value);
        }
        return packer.toByteArray();
    }

    private void write(MessageBufferPacker out, JsonNode value) throws WireError, IOException {
        String type = Fields.text(value, "type");
        switch (type) {
            case "nil":
                out.packNil();
                break;
            case "bool":
                out.packBoolean(Fields.bool(value, "value"));
                break;
            case "int":
                BigInteger n = new BigInteger(Fields.text(value, "value"));
                if (n.compareTo(INT64_MIN) < 0 || n.compareTo(UINT64_MAX) > 0) {
                    throw WireError.unrepresentable("integer " + n + " outside -2^63 .. 2^64-1");
                }
                if (n.bitLength() < 64) {
                    out.packLong(n.longValue()); // smallest form; uint family for non-negative values
                } else {
                    out.packBigInteger(n); // 2^63 .. 2^64-1 as cf
                }
                break;
            case "float32":
                out.packFloat(Float.intBitsToFloat((int) Long.parseLong(Fields.text(value, "bits"), 16)));
                break;
            case "float64":
                out.packDouble(Double.longBitsToDouble(Long.parseUnsignedLong(Fields.text(value, "bits"), 16)));
                break;
            case "str":
                byte[] utf8 = strictUtf8(Fields.text(value, "value"));
                out.packRawStringHeader(utf8.length);
                out.writePayload(utf8);
                break;
            case "bin":
                byte[] bytes = Hex.parse(Fields.text(value, "hex"));
                out.packBinaryHeader(bytes.length);
                out.writePayload(bytes);
                break;
            case "array":
                JsonNode items = Fields.array(value, "items");
                out.packArrayHeader(items.size());
                for (JsonNode item : items) {
                    write(out, item);
                }
                break;
            case "map":
                JsonNode entries = Fields.array(value, "entries");
                out.packMapHeader(entries.size());
                for (JsonNode entry : entries) {
                    if (!entry.isArray() || entry.size() != 2) {
                        throw new IllegalArgumentException("map entry is not a [key, value] pair");
                    }
                    write(out, entry.get(0));
                    write(out, entry.get(1));
                }
                break;
            case "ext":
                BigInteger code = Fields.integer(value, "code");
                if (code.bitLength() > 7) {
                    throw WireError.unrepresentable("ext code " + code + " outside -128..127");
                }
                writeExt(out, code.byteValue(), Hex.parse(Fields.text(value, "hex")));
                break;
            default:
                IgniteExt.Encoded ext = ignite.encode(value);
                writeExt(out, ext.code, ext.payload);
        }
    }

    /** packExtensionTypeHeader picks fixext 1/2/4/8/16 for those lengths, else ext8 (also for 0), ext16, ext32. */
    private static void writeExt(MessageBufferPacker out, byte code, byte[] payload) throws IOException {
        out.packExtensionTypeHeader(code, payload.length);
        out.writePayload(payload);
    }

    /**
     * packString would replace a lone surrogate with '?'; refuse it instead. The chars are copied into an array
     * first: the encoder's loop over an array is several times faster than over a wrapped String.
     */
    static byte[] strictUtf8(String text) throws WireError {
        try {
            ByteBuffer encoded = StandardCharsets.UTF_8.newEncoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .encode(CharBuffer.wrap(text.toCharArray()));
            byte[] bytes = new byte[encoded.remaining()];
            encoded.get(bytes);
            return bytes;
        } catch (CharacterCodingException e) {
            throw WireError.unrepresentable("str value has an unpaired surrogate");
        }
    }
}
