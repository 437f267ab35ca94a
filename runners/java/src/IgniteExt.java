import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessageFormat;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessagePackException;
import org.msgpack.core.MessageUnpacker;
import org.msgpack.value.ValueType;

/**
 * Ignite extension payloads. Which code means which layout in which era, and the payload lengths, come from
 * schema/registry.json; the field layouts themselves are implemented here by layout id.
 */
final class IgniteExt {
    /** Layout ids this runner implements; an era using any other layout is not offered. */
    static final Set<String> KNOWN_LAYOUTS = Set.of("number", "decimal-int32-scale", "decimal-varint-scale",
            "uuid-be", "uuid-le", "date", "time", "datetime", "timestamp", "bitmask", "ignite-uuid", "no-value");

    private static final BigInteger INT64_MIN = BigInteger.valueOf(Long.MIN_VALUE);
    private static final BigInteger INT64_MAX = BigInteger.valueOf(Long.MAX_VALUE);
    private static final BigInteger INT32_MIN = BigInteger.valueOf(Integer.MIN_VALUE);
    private static final BigInteger INT32_MAX = BigInteger.valueOf(Integer.MAX_VALUE);
    /** Highest bit index written: keeps the payload within a Java array (and far below ext32's limit). */
    private static final long MAX_BIT_INDEX = 8L * (Integer.MAX_VALUE - 16) - 1;

    /** A registry layout: payload length is exactly {@code length}, or at least {@code minLength}. */
    private static final class Layout {
        final String id;
        final String valueType;
        final boolean fixed;
        final int length;

        Layout(JsonNode node) {
            id = node.get("id").textValue();
            valueType = node.get("value_type").textValue();
            fixed = "fixed".equals(node.get("payload").textValue());
            length = node.get(fixed ? "length" : "min_length").intValue();
        }
    }

    /** An ext code and its payload, ready for the ext header. */
    static final class Encoded {
        final byte code;
        final byte[] payload;

        Encoded(int code, byte[] payload) {
            this.code = (byte) code;
            this.payload = payload;
        }
    }

    private final List<String> eras = new ArrayList<>();
    private final Map<String, Map<Integer, Layout>> layoutByEraCode = new HashMap<>();
    private final Map<String, Map<String, Integer>> codeByEraValueType = new HashMap<>();

    IgniteExt(JsonNode registry) {
        Map<String, Layout> layouts = new HashMap<>();
        for (JsonNode node : registry.get("layouts")) {
            Layout layout = new Layout(node);
            layouts.put(layout.id, layout);
        }
        for (JsonNode era : registry.get("eras")) {
            String id = era.get("id").textValue();
            eras.add(id);
            if (era.get("ignite").booleanValue()) {
                layoutByEraCode.put(id, new HashMap<>());
                codeByEraValueType.put(id, new HashMap<>());
            }
        }
        for (JsonNode type : registry.get("ext_types")) {
            int code = type.get("code").intValue();
            for (Iterator<Map.Entry<String, JsonNode>> entries = type.get("layouts").fields(); entries.hasNext();) {
                Map.Entry<String, JsonNode> entry = entries.next();
                Layout layout = layouts.get(entry.getValue().textValue());
                layoutByEraCode.get(entry.getKey()).put(code, layout);
                codeByEraValueType.get(entry.getKey()).put(layout.valueType, code);
            }
        }
    }

    /** Registry eras whose every layout this runner implements ('msgpack' has none). */
    List<String> supportedEras() {
        List<String> supported = new ArrayList<>();
        for (String era : eras) {
            boolean known = true;
            for (Layout layout : layoutByEraCode.getOrDefault(era, Map.of()).values()) {
                known &= KNOWN_LAYOUTS.contains(layout.id);
            }
            if (known) {
                supported.add(era);
            }
        }
        return supported;
    }

    boolean isEra(String era) {
        return eras.contains(era);
    }

    // ---------------------------------------------------------------- decode

    /** The Ignite value for ext {@code code} in {@code era}, or null when the era gives the code no meaning. */
    JsonNode decode(String era, byte code, byte[] payload) throws WireError, IOException {
        Layout layout = layoutByEraCode.getOrDefault(era, Map.of()).get((int) code);
        if (layout == null) {
            return null;
        }
        if (layout.fixed ? payload.length != layout.length : payload.length < layout.length) {
            throw WireError.extLength(layout.id + " payload of " + payload.length + " bytes");
        }
        ObjectNode value = Codec.typed(layout.valueType).put("era", era);
        ByteBuffer in = ByteBuffer.wrap(payload); // big-endian unless a layout says otherwise
        switch (layout.id) {
            case "number":
                return value.put("value", new BigInteger(payload).toString());
            case "decimal-int32-scale":
                value.put("scale", in.getInt());
                return value.put("unscaled", new BigInteger(Arrays.copyOfRange(payload, 4, payload.length)).toString());
            case "decimal-varint-scale":
                return decodeVarintScaleDecimal(value, payload);
            case "uuid-be":
                return value.put("value", new UUID(in.getLong(), in.getLong()).toString());
            case "uuid-le":
                in.order(ByteOrder.LITTLE_ENDIAN);
                return value.put("value", new UUID(in.getLong(), in.getLong()).toString());
            case "date":
                return putDate(value, in);
            case "time":
                return putTime(value, in);
            case "datetime":
                return putTime(putDate(value, in), in);
            case "timestamp":
                long seconds = in.getLong();
                int nano = in.getInt();
                checkInstant(seconds, nano);
                return value.put("seconds", Long.toString(seconds)).put("nano", nano);
            case "bitmask":
                value.set("bits", bitIndices(payload));
                return value;
            case "ignite-uuid":
                value.put("global", new UUID(in.getLong(), in.getLong()).toString());
                return value.put("local", Long.toString(in.getLong()));
            case "no-value":
                return value; // the payload byte's value is ignored
            default:
                throw new UnsupportedOperationException("layout " + layout.id + " not implemented");
        }
    }

    /** alpha5: the scale is a complete MessagePack int at the start of the payload; read it with the library. */
    private static ObjectNode decodeVarintScaleDecimal(ObjectNode value, byte[] payload) throws WireError, IOException {
        BigInteger scale;
        int consumed;
        try (MessageUnpacker scaleReader = MessagePack.newDefaultUnpacker(payload)) {
            MessageFormat format = scaleReader.getNextFormat();
            if (format == MessageFormat.NEVER_USED || format.getValueType() != ValueType.INTEGER) {
                throw WireError.extValue("decimal scale starts with format " + format + ", not an int");
            }
            scale = scaleReader.unpackBigInteger(); // any int format, uint64 included
            consumed = (int) scaleReader.getTotalReadBytes();
        } catch (MessagePackException e) { // the int is cut off by the end of the payload
            throw WireError.extValue("decimal scale is not a complete MessagePack int: " + e);
        }
        if (scale.compareTo(INT32_MIN) < 0 || scale.compareTo(INT32_MAX) > 0) {
            throw WireError.extValue("decimal scale " + scale + " outside int32");
        }
        if (consumed >= payload.length) {
            throw WireError.extValue("decimal has a scale but no unscaled value");
        }
        value.put("scale", scale.intValue());
        return value.put("unscaled", new BigInteger(Arrays.copyOfRange(payload, consumed, payload.length)).toString());
    }

    private static ObjectNode putDate(ObjectNode value, ByteBuffer in) throws WireError {
        int year = in.getInt();
        int month = in.get() & 0xff;
        int day = in.get() & 0xff;
        try {
            LocalDate.of(year, month, day); // proleptic Gregorian, years +-999999999
        } catch (DateTimeException e) {
            throw WireError.extValue("date " + year + "-" + month + "-" + day + ": " + e.getMessage());
        }
        return value.put("year", year).put("month", month).put("day", day);
    }

    private static ObjectNode putTime(ObjectNode value, ByteBuffer in) throws WireError {
        int hour = in.get() & 0xff;
        int minute = in.get() & 0xff;
        int second = in.get() & 0xff;
        int nano = in.getInt();
        try {
            LocalTime.of(hour, minute, second, nano);
        } catch (DateTimeException e) {
            throw WireError.extValue("time " + hour + ":" + minute + ":" + second + "." + nano + ": " + e.getMessage());
        }
        return value.put("hour", hour).put("minute", minute).put("second", second).put("nano", nano);
    }

    /** java.time.Instant's range; nanos are checked first because ofEpochSecond would carry them into seconds. */
    private static void checkInstant(long seconds, long nano) throws WireError {
        if (nano < 0 || nano > 999_999_999) {
            throw WireError.extValue("timestamp nano " + nano + " outside 0..999999999");
        }
        if (seconds < Instant.MIN.getEpochSecond() || seconds > Instant.MAX.getEpochSecond()) {
            throw WireError.extValue("timestamp seconds " + seconds + " outside java.time.Instant's range");
        }
    }

    // ---------------------------------------------------------------- encode

    /** Code and payload of an Ignite-typed value, in the layout of the value's own era. */
    Encoded encode(JsonNode value) throws WireError, IOException {
        String type = Fields.text(value, "type");
        String era = Fields.text(value, "era");
        Integer code = codeByEraValueType.getOrDefault(era, Map.of()).get(type);
        if (code == null) {
            boolean known = false;
            for (Map<String, Integer> types : codeByEraValueType.values()) {
                known |= types.containsKey(type);
            }
            if (!known) {
                throw new IllegalArgumentException("unknown value type '" + type + "'");
            }
            throw WireError.unrepresentable("era '" + era + "' has no ext code for " + type);
        }
        Layout layout = layoutByEraCode.get(era).get(code);
        ByteBuffer out;
        switch (layout.id) {
            case "number":
                return new Encoded(code, bigint(value, "value").toByteArray());
            case "decimal-int32-scale":
                byte[] unscaled = bigint(value, "unscaled").toByteArray();
                out = ByteBuffer.allocate(4 + unscaled.length);
                out.putInt(scale(value)).put(unscaled);
                return new Encoded(code, out.array());
            case "decimal-varint-scale":
                try (MessageBufferPacker scaleWriter = MessagePack.newDefaultBufferPacker()) {
                    scaleWriter.packInt(scale(value)); // the smallest MessagePack int form
                    scaleWriter.writePayload(bigint(value, "unscaled").toByteArray());
                    return new Encoded(code, scaleWriter.toByteArray());
                }
            case "uuid-be":
                return new Encoded(code, uuid(Fields.text(value, "value"), ByteOrder.BIG_ENDIAN, 16).array());
            case "uuid-le":
                return new Encoded(code, uuid(Fields.text(value, "value"), ByteOrder.LITTLE_ENDIAN, 16).array());
            case "date":
                out = ByteBuffer.allocate(6);
                writeDate(value, out);
                return new Encoded(code, out.array());
            case "time":
                out = ByteBuffer.allocate(7);
                writeTime(value, out);
                return new Encoded(code, out.array());
            case "datetime":
                out = ByteBuffer.allocate(13);
                writeDate(value, out);
                writeTime(value, out);
                return new Encoded(code, out.array());
            case "timestamp":
                BigInteger seconds = bigint(value, "seconds");
                BigInteger nano = Fields.integer(value, "nano");
                if (seconds.bitLength() > 63 || nano.bitLength() > 31) {
                    throw WireError.extValue("timestamp field outside its range");
                }
                checkInstant(seconds.longValue(), nano.longValue());
                out = ByteBuffer.allocate(12);
                out.putLong(seconds.longValue()).putInt(nano.intValue());
                return new Encoded(code, out.array());
            case "bitmask":
                return new Encoded(code, bitmask(Fields.array(value, "bits")));
            case "ignite-uuid":
                out = uuid(Fields.text(value, "global"), ByteOrder.BIG_ENDIAN, 24);
                BigInteger local = bigint(value, "local");
                if (local.compareTo(INT64_MIN) < 0 || local.compareTo(INT64_MAX) > 0) {
                    throw WireError.unrepresentable("ignite_uuid local " + local + " outside int64");
                }
                out.order(ByteOrder.BIG_ENDIAN).putLong(local.longValue());
                return new Encoded(code, out.array());
            case "no-value":
                return new Encoded(code, new byte[] {0});
            default:
                throw new UnsupportedOperationException("layout " + layout.id + " not implemented");
        }
    }

    private static BigInteger bigint(JsonNode value, String name) {
        return new BigInteger(Fields.text(value, name));
    }

    private static int scale(JsonNode value) throws WireError {
        BigInteger scale = Fields.integer(value, "scale");
        if (scale.compareTo(INT32_MIN) < 0 || scale.compareTo(INT32_MAX) > 0) {
            throw WireError.unrepresentable("decimal scale " + scale + " outside int32");
        }
        return scale.intValue();
    }

    /** A buffer of {@code size} bytes that starts with the UUID's two halves in {@code order}. */
    private static ByteBuffer uuid(String text, ByteOrder order, int size) {
        UUID uuid = UUID.fromString(text);
        ByteBuffer out = ByteBuffer.allocate(size).order(order);
        out.putLong(uuid.getMostSignificantBits()).putLong(uuid.getLeastSignificantBits());
        return out;
    }

    /** Field {@code name} as an int, or invalid.ext-value when it is outside [min, max]. */
    private static int field(JsonNode value, String name, int min, int max) throws WireError {
        BigInteger n = Fields.integer(value, name);
        if (n.compareTo(BigInteger.valueOf(min)) < 0 || n.compareTo(BigInteger.valueOf(max)) > 0) {
            throw WireError.extValue(name + " " + n + " outside " + min + ".." + max);
        }
        return n.intValue();
    }

    private static void writeDate(JsonNode value, ByteBuffer out) throws WireError {
        int year = field(value, "year", -999_999_999, 999_999_999);
        int month = field(value, "month", 1, 12);
        int day = field(value, "day", 1, 31);
        try {
            LocalDate.of(year, month, day);
        } catch (DateTimeException e) {
            throw WireError.extValue(e.getMessage());
        }
        out.putInt(year).put((byte) month).put((byte) day);
    }

    private static void writeTime(JsonNode value, ByteBuffer out) throws WireError {
        out.put((byte) field(value, "hour", 0, 23))
                .put((byte) field(value, "minute", 0, 59))
                .put((byte) field(value, "second", 0, 59))
                .putInt(field(value, "nano", 0, 999_999_999));
    }

    /**
     * The set bits of a bit set (bit i in byte i/8 at bit i%8, BitSet.toByteArray's order), ascending: a
     * BITMASK payload, and a frame's features bin.
     */
    static ArrayNode bitIndices(byte[] bytes) {
        ArrayNode bits = JsonNodeFactory.instance.arrayNode();
        for (int i = 0; i < bytes.length; i++) {
            for (int bit = 0; bit < 8; bit++) {
                if ((bytes[i] >> bit & 1) != 0) {
                    bits.add(8L * i + bit);
                }
            }
        }
        return bits;
    }

    /** Bit i in byte i/8 at bit i%8; the highest set bit ends the payload, so no trailing zero bytes. */
    static byte[] bitmask(JsonNode bits) throws WireError {
        long highest = -1;
        for (JsonNode bit : bits) {
            if (!bit.isIntegralNumber() || bit.bigIntegerValue().signum() < 0) {
                throw new IllegalArgumentException("bit index is not a non-negative integer: " + bit);
            }
            if (bit.bigIntegerValue().compareTo(BigInteger.valueOf(MAX_BIT_INDEX)) > 0) {
                throw WireError.unrepresentable("bit index " + bit + " needs a payload beyond this runner's arrays");
            }
            highest = Math.max(highest, bit.longValue());
        }
        byte[] payload = new byte[(int) ((highest + 8) / 8)];
        for (JsonNode bit : bits) {
            long index = bit.longValue();
            payload[(int) (index / 8)] |= (byte) (1 << (index % 8));
        }
        return payload;
    }
}
