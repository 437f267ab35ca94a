import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigInteger;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * Binary Tuple (IEP-92) codec: spec.md 6.2. Elements are ColumnType-typed values ({"type": "INT32", ...}).
 * No Java library implements it outside Ignite itself, so it is written here by hand, section by section
 * as runners/python/binary_tuple.py:
 *   readTuple / writeTuple            header, offset table, value area (era 3.0; beta1 adds the null map)
 *   decodeElement / encodeElement     one element per ColumnType
 *   readTriple / triple               (type, scale, value) objects
 *   decode / encode                   the formats binary-tuple, object, object-array, batched-arguments, table-row, collection,
 *                                     compute-arg; the MessagePack
 *                                     around a tuple (c0, bin, int N, the no-value BITMASK) goes through Codec
 * Everything in a tuple is little-endian except the DECIMAL unscaled value (big-endian two's complement).
 */
final class BinaryTuple {
    static final List<String> FORMATS = List.of("binary-tuple", "object", "object-array", "table-row", "collection",
            "compute-arg", "batched-arguments");

    /** ColumnType ids on the 3.0 wire (14 and 19 are not value types there). */
    private static final Map<String, Integer> TYPE_IDS = Map.ofEntries(Map.entry("NULL", 0), Map.entry("BOOLEAN", 1),
            Map.entry("INT8", 2), Map.entry("INT16", 3), Map.entry("INT32", 4), Map.entry("INT64", 5),
            Map.entry("FLOAT", 6), Map.entry("DOUBLE", 7), Map.entry("DECIMAL", 8), Map.entry("DATE", 9),
            Map.entry("TIME", 10), Map.entry("DATETIME", 11), Map.entry("TIMESTAMP", 12), Map.entry("UUID", 13),
            Map.entry("STRING", 15), Map.entry("BYTE_ARRAY", 16), Map.entry("PERIOD", 17), Map.entry("DURATION", 18));
    private static final Map<Long, String> TYPE_NAMES = new HashMap<>();
    private static final Map<String, List<Integer>> INT_WIDTHS = Map.of("INT8", List.of(1), "INT16", List.of(1, 2),
            "INT32", List.of(1, 2, 4), "INT64", List.of(1, 2, 4, 8));
    private static final long INSTANT_MIN = Instant.MIN.getEpochSecond();
    private static final long INSTANT_MAX = Instant.MAX.getEpochSecond();
    private static final int EMPTY = 0x80; // varlen marker byte
    /** Largest power of ten an object DECIMAL rescale may multiply by (the answer is written out in decimal). */
    private static final int MAX_RESCALE_DIGITS = 100_000;
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    static {
        for (Map.Entry<String, Integer> type : TYPE_IDS.entrySet()) {
            if (type.getValue() != 0) {
                TYPE_NAMES.put((long) type.getValue(), type.getKey());
            }
        }
    }

    private final Codec codec;

    BinaryTuple(Codec codec) {
        this.codec = codec;
    }

    private static boolean fits(BigInteger n, int size) {
        return n.bitLength() < 8 * size;
    }

    private static boolean between(BigInteger n, long min, long max) {
        return n.compareTo(BigInteger.valueOf(min)) >= 0 && n.compareTo(BigInteger.valueOf(max)) <= 0;
    }

    /** The Gregorian calendar repeats every 400 years, so the year's remainder decides leap years for any year. */
    private static int daysInMonth(BigInteger year, int month) {
        int y = year.mod(BigInteger.valueOf(400)).intValue();
        boolean leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
        return new int[] {31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[month - 1];
    }

    /** Little-endian two's complement of b[from, to), sign-extended (to - from <= 8). */
    private static long signed(byte[] b, int from, int to) {
        long x = b[to - 1]; // the top byte carries the sign
        for (int i = to - 2; i >= from; i--) {
            x = x << 8 | (b[i] & 0xff);
        }
        return x;
    }

    private static long unsigned(byte[] b, int from, int to) {
        long x = 0;
        for (int i = to - 1; i >= from; i--) {
            x = x << 8 | (b[i] & 0xff);
        }
        return x;
    }

    private static byte[] le(long x, int size) {
        byte[] out = new byte[size];
        for (int i = 0; i < size; i++) {
            out[i] = (byte) (x >> 8 * i);
        }
        return out;
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = new byte[a.length + b.length];
        System.arraycopy(a, 0, out, 0, a.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    // ---------------------------------------------------------------- the tuple

    /** The n element byte strings (empty for a zero-length element) and, for beta1, which of them are NULL. */
    record Tuple(byte[][] parts, boolean[] nulls) {
    }

    static Tuple readTuple(byte[] data, long n, String era) throws WireError {
        if (data.length < 1) {
            throw new WireError("malformed.truncated", "no header byte");
        }
        int flags = data[0] & 0xff;
        int reserved = era.equals("beta1") ? 0xf8 : 0xfc; // beta1: bit 2 is the null-map flag
        if ((flags & reserved) != 0) {
            throw new WireError("malformed.tuple-header", "reserved header bits " + (flags & reserved));
        }
        if ((flags & 3) == 3) {
            throw new WireError("malformed.tuple-header", "8-byte offset entries do not exist");
        }
        int size = 1 << (flags & 3);
        // Every element has an offset entry: a count above the input length cannot fit (and n * size cannot overflow).
        if (n > data.length) {
            throw new WireError("malformed.truncated", n + " offset entries need more than " + data.length + " bytes");
        }
        int nullmap = (flags & 4) != 0 ? (int) ((n + 7) / 8) : 0;
        long base = 1 + nullmap + n * size;
        if (base > data.length) {
            throw new WireError("malformed.truncated", "header and offset table need " + base + " bytes, "
                    + data.length + " given");
        }
        byte[][] parts = new byte[(int) n][];
        boolean[] nulls = new boolean[(int) n];
        long start = 0;
        for (int i = 0; i < n; i++) {
            nulls[i] = nullmap > 0 && (data[1 + i / 8] >> (i % 8) & 1) != 0;
            int at = 1 + nullmap + i * size;
            long end = unsigned(data, at, at + size);
            if (end < start) {
                throw new WireError("malformed.tuple-offsets", "element " + i + " ends at " + end
                        + ", before its start " + start);
            }
            if (base + end > data.length) {
                throw new WireError("malformed.tuple-offsets", "element " + i + " ends at " + (base + end)
                        + ", past the input (" + data.length + ")");
            }
            parts[i] = Arrays.copyOfRange(data, (int) (base + start), (int) (base + end));
            start = end;
        }
        // Strict: the input is exactly one tuple (spec BT-TRAILING leaves this to the implementation).
        if (base + start != data.length) {
            throw new WireError("malformed.tuple-offsets", (data.length - base - start)
                    + " bytes after the last element");
        }
        return new Tuple(parts, nulls);
    }

    /** Header, (beta1: null map,) end offsets in the smallest entry size for the value area, values. */
    static byte[] writeTuple(List<byte[]> parts, boolean[] nulls) {
        ByteArrayOutputStream area = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            area.writeBytes(part);
        }
        int size = area.size() <= 0xff ? 1 : area.size() <= 0xffff ? 2 : 4;
        boolean nullmap = nulls != null && anyTrue(nulls);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write((size == 1 ? 0 : size == 2 ? 1 : 2) | (nullmap ? 4 : 0));
        if (nullmap) {
            byte[] mask = new byte[(parts.size() + 7) / 8];
            for (int i = 0; i < parts.size(); i++) {
                mask[i / 8] |= (byte) (nulls[i] ? 1 << (i % 8) : 0);
            }
            out.writeBytes(mask);
        }
        long end = 0;
        for (byte[] part : parts) {
            end += part.length;
            out.writeBytes(le(end, size));
        }
        out.writeBytes(area.toByteArray());
        return out.toByteArray();
    }

    private static boolean anyTrue(boolean[] flags) {
        for (boolean flag : flags) {
            if (flag) {
                return true;
            }
        }
        return false;
    }

    // ---------------------------------------------------------------- elements: decode

    private static void need(String t, byte[] b, boolean ok) throws WireError {
        if (!ok) {
            throw new WireError("invalid.tuple-length", t + " element of " + b.length + " bytes");
        }
    }

    /** An integer element of type t (INT8..INT64), any width the type allows. */
    private static long intElement(String t, byte[] b) throws WireError {
        need(t, b, INT_WIDTHS.get(t).contains(b.length));
        return signed(b, 0, b.length);
    }

    private static ObjectNode decodeTime(ObjectNode v, byte[] b, int from) throws WireError {
        int length = b.length - from;
        int bits = length == 4 ? 10 : length == 5 ? 20 : 30; // fraction bits: millis, micros, nanos
        long unit = length == 4 ? 1_000_000 : length == 5 ? 1000 : 1;
        long x = unsigned(b, from, b.length);
        long frac = x & ((1L << bits) - 1);
        x >>= bits;
        long s = x & 63, mi = x >> 6 & 63, h = x >> 12 & 31, rest = x >> 17;
        // Strict on the unused top bits (spec BT-TIME-PADDING leaves them to the implementation; Java ignores them).
        if (rest != 0) {
            throw new WireError("invalid.tuple-value", "unused TIME bits set");
        }
        if (!(h <= 23 && mi <= 59 && s <= 59 && frac * unit <= 999_999_999)) {
            throw new WireError("invalid.tuple-value", "no time " + h + ":" + mi + ":" + s + " + " + frac + " x "
                    + unit + " ns");
        }
        return v.put("hour", h).put("minute", mi).put("second", s).put("nano", frac * unit);
    }

    private static ObjectNode decodeDate(ObjectNode v, byte[] b) throws WireError {
        int d = (int) signed(b, 0, 3); // the 24-bit value, year sign-extended from bit 23
        int y = d >> 9, m = d >> 5 & 15, day = d & 31;
        if (!(1 <= m && m <= 12 && 1 <= day && day <= daysInMonth(BigInteger.valueOf(y), m))) {
            throw new WireError("invalid.tuple-value", "no date " + y + "-" + m + "-" + day);
        }
        return v.put("year", y).put("month", m).put("day", day);
    }

    private static ObjectNode secondsNanos(ObjectNode v, String t, byte[] b) throws WireError {
        need(t, b, b.length == 8 || b.length == 12);
        // any int32 nanos, normalised as Java's Instant.ofEpochSecond / Duration.ofSeconds do (spec BT-TIMESTAMP,
        // BT-DURATION); a result outside int64 seconds is out of range
        long raw = b.length == 12 ? signed(b, 8, 12) : 0, nano = Math.floorMod(raw, 1_000_000_000L), seconds;
        try {
            seconds = Math.addExact(signed(b, 0, 8), Math.floorDiv(raw, 1_000_000_000L));
        } catch (ArithmeticException e) {
            throw new WireError("invalid.tuple-value", "seconds " + signed(b, 0, 8) + " + nanos " + raw
                    + " outside int64");
        }
        if (t.equals("TIMESTAMP")) {
            if (!(INSTANT_MIN <= seconds && seconds <= INSTANT_MAX)) {
                throw new WireError("invalid.tuple-value", "seconds " + seconds + " outside Instant");
            }
        }
        return v.put("seconds", Long.toString(seconds)).put("nano", nano);
    }

    private static byte[] decodeVarlen(byte[] b) {
        return (b[0] & 0xff) == EMPTY ? Arrays.copyOfRange(b, 1, b.length) : b; // strip exactly one 80
    }

    /** The typed value of a non-empty element of column type t. */
    static ObjectNode decodeElement(String t, byte[] b, String era) throws WireError {
        ObjectNode v = Codec.typed(t);
        switch (t) {
            case "BOOLEAN":
                need(t, b, b.length == 1);
                if (!(b[0] == 0 || b[0] == 1)) { // strict
                    throw new WireError("invalid.tuple-value", "BOOLEAN byte " + (b[0] & 0xff));
                }
                return v.put("value", b[0] == 1);
            case "INT8": case "INT16": case "INT32": case "INT64":
                return v.put("value", Long.toString(intElement(t, b)));
            case "FLOAT":
                need(t, b, b.length == 4);
                return v.put("bits", Hex.of(unsigned(b, 0, 4), 8));
            case "DOUBLE":
                need(t, b, b.length == 4 || b.length == 8);
                return v.put("bits", Hex.of(b.length == 8 ? unsigned(b, 0, 8) : widen((int) unsigned(b, 0, 4)), 16));
            case "DECIMAL":
                need(t, b, b.length >= 3);
                return v.put("unscaled", new BigInteger(Arrays.copyOfRange(b, 2, b.length)).toString())
                        .put("scale", signed(b, 0, 2));
            case "DATE":
                need(t, b, b.length == 3);
                return decodeDate(v, b);
            case "TIME":
                need(t, b, b.length >= 4 && b.length <= 6);
                return decodeTime(v, b, 0);
            case "DATETIME":
                need(t, b, b.length >= 7 && b.length <= 9);
                return decodeTime(decodeDate(v, b), b, 3);
            case "TIMESTAMP": case "DURATION":
                return secondsNanos(v, t, b);
            case "UUID":
                need(t, b, b.length == 16);
                return v.put("value", new UUID(signed(b, 0, 8), signed(b, 8, 16)).toString());
            case "STRING":
                return v.put("value", Codec.utf8(era.equals("beta1") ? b : decodeVarlen(b)));
            case "BYTE_ARRAY":
                return v.put("hex", Hex.of(era.equals("beta1") ? b : decodeVarlen(b)));
            case "PERIOD":
                need(t, b, b.length == 3 || b.length == 6 || b.length == 12);
                int k = b.length / 3;
                return v.put("years", signed(b, 0, k)).put("months", signed(b, k, 2 * k)).put("days", signed(b, 2 * k, 3 * k));
            case "NUMBER": // a beta1-only column type (spec 6.2.8): BigInteger, big-endian two's complement
                if (!era.equals("beta1")) {
                    throw new WireError("invalid.tuple-type", "NUMBER is not a 3.0 column type");
                }
                return v.put("value", new BigInteger(b).toString());
            default:
                throw new WireError("invalid.tuple-type", "no column type '" + t + "'");
        }
    }

    /**
     * float32 bits as the float64 bits of the same value (exact for every non-NaN). A NaN keeps its sign and payload
     * and comes out quiet, as IEEE 754 conversion and Ignite's own reader ((double) floatValue on x86) give it; done
     * by hand so that it does not depend on the platform's conversion instruction.
     */
    private static long widen(int bits) {
        float f = Float.intBitsToFloat(bits);
        if (!Float.isNaN(f)) {
            return Double.doubleToRawLongBits(f);
        }
        return (long) (bits >>> 31) << 63 | 0x7ffL << 52 | 1L << 51 | (long) (bits & 0x7fffff) << 29;
    }

    /** beta1: a zero-length element of a non-NULL column is the type's default; null for types without one. */
    private static ObjectNode beta1Default(String t) {
        switch (t) {
            case "BOOLEAN": return Codec.typed(t).put("value", false);
            case "FLOAT": return Codec.typed(t).put("bits", "00000000");
            case "DOUBLE": return Codec.typed(t).put("bits", "0000000000000000");
            case "STRING": return Codec.typed(t).put("value", "");
            case "BYTE_ARRAY": return Codec.typed(t).put("hex", "");
            case "INT8": case "INT16": case "INT32": case "INT64": return Codec.typed(t).put("value", "0");
            // zero length by value (nil UUID) or because java.time returns its constants for zero (spec 6.2.8)
            case "UUID": return Codec.typed(t).put("value", "00000000-0000-0000-0000-000000000000");
            case "TIME": return Codec.typed(t).put("hour", 0).put("minute", 0).put("second", 0).put("nano", 0);
            case "TIMESTAMP": case "DURATION": return Codec.typed(t).put("seconds", "0").put("nano", 0);
            case "PERIOD": return Codec.typed(t).put("years", 0).put("months", 0).put("days", 0);
            case "NUMBER": return Codec.typed(t).put("value", "0"); // zero by value (appendNumberNotNull)
            // the reader's DEFAULT_DATE and DEFAULT_DATE_TIME (spec BT-BETA1)
            case "DATE": return Codec.typed(t).put("year", 0).put("month", 1).put("day", 1);
            case "DATETIME": return Codec.typed(t).put("year", 0).put("month", 1).put("day", 1)
                    .put("hour", 0).put("minute", 0).put("second", 0).put("nano", 0);
            default: return null;
        }
    }

    static ObjectNode decodeColumn(String t, byte[] b, String era, boolean isNull) throws WireError {
        if (era.equals("beta1")) {
            if (isNull) {
                return Codec.typed("NULL");
            }
            if (t.equals("DECIMAL")) { // the unscaled value only; its scale is the column's (spec BT-BETA1)
                throw new UnsupportedOperationException("beta1 DECIMAL is not modelled (spec 6.2.8)");
            }
            if (b.length == 0) {
                ObjectNode fallback = beta1Default(t);
                if (fallback == null) {
                    throw new WireError("invalid.tuple-length", "no beta1 default for " + t);
                }
                return fallback;
            }
        } else if (b.length == 0) {
            return Codec.typed("NULL");
        }
        return decodeElement(t, b, era);
    }

    // ---------------------------------------------------------------- elements: encode

    private static byte[] encodeInt(String t, BigInteger n) throws WireError {
        for (int size : INT_WIDTHS.get(t)) {
            if (fits(n, size)) {
                return le(n.longValue(), size);
            }
        }
        throw WireError.unrepresentable(n + " does not fit " + t);
    }

    private static byte[] encodeDouble(long bits) {
        double x = Double.longBitsToDouble(bits);
        float narrow = (float) x; // x == (double)(float)x: never for NaN; rounding to infinity reads back unequal
        return (double) narrow == x ? le(Float.floatToRawIntBits(narrow), 4) : le(bits, 8);
    }

    private static byte[] encodeDate(JsonNode v) throws WireError {
        BigInteger y = Fields.integer(v, "year"), m = Fields.integer(v, "month"), d = Fields.integer(v, "day");
        if (!(between(m, 1, 12) && between(d, 1, daysInMonth(y, m.intValue())))) {
            throw new WireError("invalid.tuple-value", "no date " + y + "-" + m + "-" + d);
        }
        if (!between(y, -16384, 16383)) {
            throw new WireError("unrepresentable", "year " + y + " does not fit 15 bits");
        }
        return le(y.intValue() << 9 | m.intValue() << 5 | d.intValue(), 3);
    }

    private static byte[] encodeTime(JsonNode v) throws WireError {
        BigInteger h = Fields.integer(v, "hour"), mi = Fields.integer(v, "minute"), s = Fields.integer(v, "second");
        BigInteger n = Fields.integer(v, "nano");
        if (!(between(h, 0, 23) && between(mi, 0, 59) && between(s, 0, 59) && between(n, 0, 999_999_999))) {
            throw new WireError("invalid.tuple-value", "no time " + h + ":" + mi + ":" + s + "." + n);
        }
        long nano = n.longValue();
        int size = nano % 1000 != 0 ? 6 : nano % 1_000_000 != 0 ? 5 : 4;
        int bits = size == 4 ? 10 : size == 5 ? 20 : 30;
        long unit = size == 4 ? 1_000_000 : size == 5 ? 1000 : 1;
        return le((h.longValue() << 12 | mi.longValue() << 6 | s.longValue()) << bits | nano / unit, size);
    }

    private static byte[] encodeSecondsNanos(JsonNode v) throws WireError {
        BigInteger seconds = new BigInteger(Fields.text(v, "seconds")), nano = Fields.integer(v, "nano");
        if (!between(nano, 0, 999_999_999)) {
            throw new WireError("invalid.tuple-value", "nano " + nano);
        }
        if (Fields.text(v, "type").equals("TIMESTAMP")) {
            if (!between(seconds, INSTANT_MIN, INSTANT_MAX)) {
                throw new WireError("invalid.tuple-value", "seconds " + seconds);
            }
        }
        if (!fits(seconds, 8)) {
            throw new WireError("unrepresentable", "seconds " + seconds + " outside int64");
        }
        byte[] out = le(seconds.longValue(), 8);
        return nano.signum() != 0 ? concat(out, le(nano.longValue(), 4)) : out;
    }

    private static byte[] encodeDecimal(BigInteger unscaled, BigInteger scale) throws WireError {
        if (!fits(scale, 2)) {
            throw new WireError("unrepresentable", "scale " + scale + " outside int16");
        }
        return concat(le(scale.longValue(), 2), unscaled.toByteArray()); // minimal big-endian two's complement
    }

    private static byte[] encodeVarlen(byte[] data) {
        return data.length == 0 || (data[0] & 0xff) == EMPTY ? concat(new byte[] {(byte) EMPTY}, data) : data;
    }

    static byte[] encodeElement(JsonNode v, String era) throws WireError {
        String t = Fields.text(v, "type");
        if (t.equals("NULL") || t.equals("NO_VALUE")) {
            return new byte[0];
        }
        if (era.equals("beta1")) {
            return encodeElementBeta1(v, t);
        }
        switch (t) {
            case "BOOLEAN":
                return new byte[] {(byte) (Fields.bool(v, "value") ? 1 : 0)};
            case "INT8": case "INT16": case "INT32": case "INT64":
                return encodeInt(t, new BigInteger(Fields.text(v, "value")));
            case "FLOAT":
                return le(Long.parseLong(Fields.text(v, "bits"), 16), 4);
            case "DOUBLE":
                return encodeDouble(Long.parseUnsignedLong(Fields.text(v, "bits"), 16));
            case "DECIMAL":
                return encodeDecimal(new BigInteger(Fields.text(v, "unscaled")), Fields.integer(v, "scale"));
            case "DATE":
                return encodeDate(v);
            case "TIME":
                return encodeTime(v);
            case "DATETIME":
                return concat(encodeDate(v), encodeTime(v));
            case "TIMESTAMP": case "DURATION":
                return encodeSecondsNanos(v);
            case "UUID":
                UUID uuid = UUID.fromString(Fields.text(v, "value"));
                return concat(le(uuid.getMostSignificantBits(), 8), le(uuid.getLeastSignificantBits(), 8));
            case "STRING":
                return encodeVarlen(Codec.strictUtf8(Fields.text(v, "value")));
            case "BYTE_ARRAY":
                return encodeVarlen(Hex.parse(Fields.text(v, "hex")));
            case "PERIOD":
                BigInteger[] parts = {Fields.integer(v, "years"), Fields.integer(v, "months"), Fields.integer(v, "days")};
                for (int size : List.of(1, 2, 4)) {
                    if (fits(parts[0], size) && fits(parts[1], size) && fits(parts[2], size)) {
                        return concat(concat(le(parts[0].longValue(), size), le(parts[1].longValue(), size)),
                                le(parts[2].longValue(), size));
                    }
                }
                throw WireError.unrepresentable("period " + parts[0] + ", " + parts[1] + ", " + parts[2] + " outside int32");
            default:
                throw new WireError("invalid.tuple-type", "no element type '" + t + "'");
        }
    }

    /** BT-1: defaults (0, 0.0, false, empty) are zero-length; no 80 marker. */
    private static byte[] encodeElementBeta1(JsonNode v, String t) throws WireError {
        switch (t) {
            case "STRING":
                return Codec.strictUtf8(Fields.text(v, "value"));
            case "BYTE_ARRAY":
                return Hex.parse(Fields.text(v, "hex"));
            case "BOOLEAN":
                return Fields.bool(v, "value") ? encodeElement(v, "3.0") : new byte[0];
            case "INT8": case "INT16": case "INT32": case "INT64":
                return new BigInteger(Fields.text(v, "value")).signum() == 0 ? new byte[0] : encodeElement(v, "3.0");
            case "FLOAT": case "DOUBLE":
                return Long.parseUnsignedLong(Fields.text(v, "bits"), 16) == 0 ? new byte[0] : encodeElement(v, "3.0");
            case "UUID": case "TIME": case "TIMESTAMP": case "DURATION": case "PERIOD": case "DATE": case "DATETIME":
                return v.equals(beta1Default(t)) ? new byte[0] : encodeElement(v, "3.0");
            case "NUMBER": { // BigInteger.toByteArray, nothing for zero
                BigInteger n = new BigInteger(Fields.text(v, "value"));
                return n.signum() == 0 ? new byte[0] : n.toByteArray();
            }
            default:
                throw new UnsupportedOperationException("beta1 " + t + " is not modelled (spec 6.2.8)");
        }
    }

    // ---------------------------------------------------------------- triples

    static List<byte[]> triple(JsonNode v) throws WireError {
        String t = Fields.text(v, "type");
        if (t.equals("NULL")) {
            return List.of(new byte[0], new byte[0], new byte[0]);
        }
        if (!TYPE_IDS.containsKey(t)) {
            throw new WireError("invalid.tuple-type", "no object type '" + t + "'");
        }
        BigInteger scale = BigInteger.ZERO;
        byte[] value;
        if (t.equals("DECIMAL")) {
            BigInteger unscaled = new BigInteger(Fields.text(v, "unscaled"));
            scale = Fields.integer(v, "scale");
            if (!fits(scale, 4)) {
                throw new WireError("unrepresentable", "scale " + scale + " outside int32");
            }
            // The java producer profile (canonical), shrinkDecimal: stripTrailingZeros(), zero becomes (0, 0).
            BigInteger su = unscaled, ss = unscaled.signum() == 0 ? BigInteger.ZERO : scale;
            while (su.signum() != 0 && su.mod(BigInteger.TEN).signum() == 0) {
                su = su.divide(BigInteger.TEN);
                ss = ss.subtract(BigInteger.ONE);
            }
            value = fits(ss, 2) ? encodeDecimal(su, ss) : encodeDecimal(unscaled, scale);
        } else {
            value = encodeElement(v, "3.0");
        }
        return List.of(encodeInt("INT32", BigInteger.valueOf(TYPE_IDS.get(t))), encodeInt("INT32", scale), value);
    }

    static ObjectNode readTriple(byte[][] parts, int from) throws WireError {
        byte[] typeB = parts[from], scaleB = parts[from + 1], valueB = parts[from + 2];
        if (typeB.length == 0) {
            return Codec.typed("NULL");
        }
        long typeId = intElement("INT32", typeB);
        String t = TYPE_NAMES.get(typeId);
        if (t == null) {
            throw new WireError("invalid.tuple-type", "type id " + typeId + " is not a 3.0 value type");
        }
        if (valueB.length == 0) {
            throw new WireError("invalid.tuple-length", t + " object without a value");
        }
        ObjectNode v = decodeElement(t, valueB, "3.0");
        if (t.equals("DECIMAL")) {
            // Java reads the scale with intValue, which refuses a zero-length element (spec BT-OBJECT-DECIMAL-SCALE).
            if (scaleB.length == 0) {
                throw new WireError("invalid.tuple-length", "DECIMAL object with a NULL scale element");
            }
            long want = intElement("INT32", scaleB);
            BigInteger unscaled = new BigInteger(v.get("unscaled").textValue());
            long diff = want - v.get("scale").longValue();
            if (diff > 0 && unscaled.signum() != 0) {
                if (diff > MAX_RESCALE_DIGITS) { // not a verdict on the input: the answer would be too long to write
                    throw new UnsupportedOperationException("rescale by 10^" + diff + " is beyond this runner");
                }
                unscaled = unscaled.multiply(BigInteger.TEN.pow((int) diff));
            } else if (diff < 0) {
                // |unscaled| < 10^digits: dividing by a larger power of ten always leaves a remainder (unless 0).
                boolean small = -diff <= unscaled.abs().toString().length();
                BigInteger[] qr = small ? unscaled.divideAndRemainder(BigInteger.TEN.pow((int) -diff))
                        : new BigInteger[] {BigInteger.ZERO, unscaled};
                if (qr[1].signum() != 0) {
                    // asText, not the node's toString (which builds a JsonMapper and its serializers at first use).
                    throw new WireError("invalid.tuple-value", "(" + unscaled + ", " + v.get("scale").asText()
                            + ") does not rescale exactly to scale " + want);
                }
                unscaled = qr[0];
            }
            v = Codec.typed(t).put("unscaled", unscaled.toString()).put("scale", want);
        }
        return v;
    }

    // ---------------------------------------------------------------- formats

    private static byte[] binOf(JsonNode value, String what) throws WireError {
        if (!value.path("type").asText().equals("bin")) {
            throw new WireError("invalid.tuple-type", what + ": expected a bin, got " + value.path("type").asText());
        }
        return Hex.parse(value.get("hex").textValue());
    }

    /** The bin that must follow the first MessagePack value of a collection or compute argument, alone. */
    private static byte[] oneBinAfter(ArrayNode outer, String what) throws WireError {
        if (outer.size() != 2) {
            throw new WireError("invalid.tuple-type", what + ": expected one bin after the first value, got "
                    + (outer.size() - 1) + " values");
        }
        return binOf(outer.get(1), what);
    }

    /** Spec 6.3: element count n, then the tuple of type id, count, items. */
    private static ArrayNode readCollection(BigInteger n, ArrayNode outer, String era, ArrayNode out) throws WireError {
        if (n.compareTo(BigInteger.TWO) < 0) {
            throw new WireError("invalid.tuple-type", "collection element count " + n + " is below 2");
        }
        if (outer.size() < 2) {
            throw new WireError("malformed.truncated", "collection: the input ends where the bin belongs");
        }
        long elements = n.bitLength() < 32 ? n.longValue() : Long.MAX_VALUE; // readTuple: malformed.truncated
        byte[][] parts = readTuple(oneBinAfter(outer, "collection"), elements, era).parts();
        long typeId = intElement("INT32", parts[0]), count = intElement("INT32", parts[1]);
        String t = TYPE_NAMES.get(typeId);
        if (t == null) {
            throw new WireError("invalid.tuple-type", "collection type id " + typeId + " is not a 3.0 value type");
        }
        if (count != elements - 2) {
            throw new WireError("invalid.tuple-type", "collection count " + count + " with " + elements
                    + " elements (count + 2 expected)");
        }
        for (int i = 2; i < parts.length; i++) {
            if (parts[i].length == 0) {
                throw new WireError("invalid.tuple-length", "a NULL collection item");
            }
            out.add(decodeElement(t, parts[i], era));
        }
        return out;
    }

    private static final BigInteger COMPUTE_MARSHALLED = BigInteger.TWO; // ComputeJobDataType ids: NATIVE 0

    /** Spec 6.4: kind, then one bin holding a triple (NATIVE) or the marshaller's bytes (MARSHALLED_CUSTOM). */
    private static ArrayNode readComputeArg(BigInteger kind, ArrayNode outer, String era, ArrayNode out) throws WireError {
        if (!(kind.signum() == 0 || kind.equals(COMPUTE_MARSHALLED))) {
            throw new WireError("invalid.tuple-type", "compute argument kind " + kind);
        }
        if (outer.size() < 2) {
            throw new WireError("malformed.truncated", "compute argument: the input ends where the bin belongs");
        }
        byte[] data = oneBinAfter(outer, "compute argument");
        return out.add(kind.signum() == 0 ? readTriple(readTuple(data, 3, era).parts(), 0)
                : Codec.typed("MARSHALLED").put("hex", Hex.of(data)));
    }

    private static List<byte[]> collectionParts(JsonNode values) throws WireError {
        String t = Fields.text(values.get(0), "type");
        List<byte[]> parts = new ArrayList<>(List.of(encodeInt("INT32", BigInteger.valueOf(TYPE_IDS.getOrDefault(t, 0))),
                encodeInt("INT32", BigInteger.valueOf(values.size()))));
        for (JsonNode value : values) {
            String type = Fields.text(value, "type");
            if (type.equals("NULL")) {
                throw new WireError("unrepresentable", "a NULL collection item");
            }
            if (!type.equals(t)) {
                throw new WireError("unrepresentable", "collection items of types " + t + " and " + type);
            }
            parts.add(encodeElement(value, "3.0"));
        }
        return parts;
    }

    ArrayNode decode(String fmt, byte[] data, String era, List<String> columns) throws WireError, IOException {
        ArrayNode out = JSON.arrayNode();
        if (fmt.equals("binary-tuple")) {
            Tuple tuple = readTuple(data, columns.size(), era);
            for (int i = 0; i < columns.size(); i++) {
                out.add(decodeColumn(columns.get(i), tuple.parts()[i], era, tuple.nulls()[i]));
            }
            return out;
        }
        ArrayNode outer = codec.decode(data, "3.0");
        // Input that ends where a value of the form belongs is truncated (spec BT-WRAPPER, BT-COLLECTION-COUNT,
        // BT-COMPUTE-ARG-BIN): Java meets the end of its buffer, as for any cut value.
        if (outer.size() == 0) {
            throw new WireError("malformed.truncated", fmt + ": no value");
        }
        switch (fmt) {
            case "object":
                if (outer.size() != 1) {
                    throw new WireError("invalid.tuple-type", "an object is one MessagePack value, not "
                            + outer.size());
                }
                if (outer.get(0).get("type").textValue().equals("nil")) {
                    return out.add(Codec.typed("NULL"));
                }
                return out.add(readTriple(readTuple(binOf(outer.get(0), "object"), 3, era).parts(), 0));
            case "object-array":
                if (!outer.get(0).get("type").textValue().equals("int")) {
                    throw new WireError("invalid.tuple-type", "an object array starts with its count");
                }
                BigInteger n = new BigInteger(outer.get(0).get("value").textValue());
                if (n.signum() < 0) {
                    throw new WireError("invalid.tuple-type", "negative object count " + n);
                }
                if (n.signum() > 0 && outer.size() < 2) {
                    throw new WireError("malformed.truncated", "object array: the input ends where the bin belongs");
                }
                if (outer.size() != (n.signum() > 0 ? 2 : 1)) {
                    throw new WireError("invalid.tuple-type", "an object array is a count and (N > 0) one bin");
                }
                if (n.signum() == 0) {
                    return out;
                }
                // 3N beyond any input length: readTuple answers malformed.truncated without allocating.
                long elements = n.bitLength() < 32 ? 3 * n.longValue() : Long.MAX_VALUE;
                Tuple tuple = readTuple(binOf(outer.get(1), "object array"), elements, era);
                for (int i = 0; i < elements; i += 3) {
                    out.add(readTriple(tuple.parts(), i));
                }
                return out;
            case "batched-arguments":
                return readBatch(outer, era, out);
            case "collection":
            case "compute-arg":
                if (outer.get(0).get("type").textValue().equals("nil")) {
                    if (outer.size() != 1) {
                        throw new WireError("invalid.tuple-type", fmt + ": nil followed by more values");
                    }
                    return fmt.equals("collection") ? out : out.add(Codec.typed("NULL"));
                }
                if (!outer.get(0).get("type").textValue().equals("int")) {
                    throw new WireError("invalid.tuple-type", fmt + ": the first value is not an int");
                }
                BigInteger first = new BigInteger(outer.get(0).get("value").textValue());
                return fmt.equals("collection") ? readCollection(first, outer, era, out)
                        : readComputeArg(first, outer, era, out);
            case "table-row":
                if (outer.size() == 1 && outer.get(0).get("type").textValue().equals("bitmask")) {
                    throw new WireError("malformed.truncated", "row: the input ends where the bin belongs");
                }
                if (!(outer.size() == 2 && outer.get(0).get("type").textValue().equals("bitmask"))) {
                    throw new WireError("invalid.tuple-type", "a row is a BITMASK and a bin");
                }
                Tuple row = readTuple(binOf(outer.get(1), "row"), columns.size(), era);
                Set<Long> noValue = new HashSet<>();
                for (JsonNode bit : outer.get(0).get("bits")) {
                    noValue.add(bit.longValue());
                }
                for (int i = 0; i < columns.size(); i++) {
                    out.add(noValue.contains((long) i) ? Codec.typed("NO_VALUE")
                            : decodeColumn(columns.get(i), row.parts()[i], era, false));
                }
                return out;
            default:
                throw new UnsupportedOperationException("format '" + fmt + "'");
        }
    }

    byte[] encode(String fmt, JsonNode values, String era) throws WireError, IOException {
        ArrayNode outer = JSON.arrayNode();
        switch (fmt) {
            case "binary-tuple":
                List<byte[]> parts = new ArrayList<>();
                boolean[] nulls = new boolean[values.size()];
                for (int i = 0; i < values.size(); i++) {
                    parts.add(encodeElement(values.get(i), era));
                    nulls[i] = era.equals("beta1") && Fields.text(values.get(i), "type").equals("NULL");
                }
                return writeTuple(parts, nulls);
            case "object":
                JsonNode v = values.get(0);
                outer.add(Fields.text(v, "type").equals("NULL") ? Codec.typed("nil") : bin(writeTuple(triple(v), null)));
                return codec.encode(outer);
            case "object-array":
                outer.add(Codec.typed("int").put("value", Integer.toString(values.size())));
                if (values.size() > 0) {
                    List<byte[]> triples = new ArrayList<>();
                    for (JsonNode value : values) {
                        triples.addAll(triple(value));
                    }
                    outer.add(bin(writeTuple(triples, null)));
                }
                return codec.encode(outer);
            case "batched-arguments":
                return writeBatch(values, outer);
            case "table-row":
                ObjectNode mask = Codec.typed("bitmask").put("era", era);
                ArrayNode bits = mask.putArray("bits");
                List<byte[]> row = new ArrayList<>();
                for (int i = 0; i < values.size(); i++) {
                    if (Fields.text(values.get(i), "type").equals("NO_VALUE")) {
                        bits.add(i);
                    }
                    row.add(encodeElement(values.get(i), "3.0"));
                }
                return codec.encode(outer.add(mask).add(bin(writeTuple(row, null))));
            case "collection":
                if (values.size() == 0) {
                    return codec.encode(outer.add(Codec.typed("nil")));
                }
                outer.add(Codec.typed("int").put("value", Integer.toString(values.size() + 2)));
                return codec.encode(outer.add(bin(writeTuple(collectionParts(values), null))));
            case "compute-arg":
                JsonNode arg = values.get(0);
                String kind = Fields.text(arg, "type");
                if (kind.equals("NULL")) {
                    return codec.encode(outer.add(Codec.typed("nil")));
                }
                boolean marshalled = kind.equals("MARSHALLED");
                outer.add(Codec.typed("int").put("value", marshalled ? COMPUTE_MARSHALLED.toString() : "0"));
                return codec.encode(outer.add(marshalled ? Codec.typed("bin").put("hex", Fields.text(arg, "hex"))
                        : bin(writeTuple(triple(arg), null))));
            default:
                throw new UnsupportedOperationException("format '" + fmt + "'");
        }
    }

    /** Batched arguments (spec BT-BATCH): nil, or row length N, row count, a bool (ignored), one bin of 3N elements
     * per row; input that ends early is malformed.truncated, any other form invalid.tuple-type (BT-BATCH-FORM). */
    private ArrayNode readBatch(ArrayNode outer, String era, ArrayNode out) throws WireError {
        if (outer.size() > 0 && outer.get(0).get("type").textValue().equals("nil")) {
            if (outer.size() != 1) {
                throw new WireError("invalid.tuple-type", "batched arguments: nil followed by more values");
            }
            return out;
        }
        // input that ends where a header value or a row belongs is truncated (BT-BATCH-FORM): Java meets the end
        String[][] header = {{"int", "row length"}, {"int", "row count"}, {"bool", "third value"}};
        for (int i = 0; i < header.length; i++) {
            if (outer.size() <= i) {
                throw new WireError("malformed.truncated", "batched arguments: the input ends where the " + header[i][1] + " belongs");
            }
            if (!outer.get(i).get("type").textValue().equals(header[i][0])) {
                throw new WireError("invalid.tuple-type", "batched arguments are a row length, a count and a bool, then the rows");
            }
        }
        BigInteger n = new BigInteger(outer.get(0).get("value").textValue());
        BigInteger rows = new BigInteger(outer.get(1).get("value").textValue());
        if (n.signum() < 0 || rows.signum() < 0 || (n.signum() == 0 && rows.signum() > 0)) {
            throw new WireError("invalid.tuple-type", "batched arguments: row length " + n + ", count " + rows);
        }
        if (rows.compareTo(BigInteger.valueOf(outer.size() - 3)) > 0) {
            throw new WireError("malformed.truncated", "batched arguments: count " + rows + ", the input ends after "
                    + (outer.size() - 3) + " rows");
        }
        if (!rows.equals(BigInteger.valueOf(outer.size() - 3))) {
            throw new WireError("invalid.tuple-type", "batched arguments: count " + rows + ", " + (outer.size() - 3)
                    + " values follow");
        }
        // 3N beyond any input length: readTuple answers malformed.truncated without allocating.
        long elements = n.bitLength() < 32 ? 3 * n.longValue() : Long.MAX_VALUE;
        for (int r = 3; r < outer.size(); r++) {
            Tuple tuple = readTuple(binOf(outer.get(r), "batch row"), elements, era);
            ObjectNode row = Codec.typed("array");
            ArrayNode items = row.putArray("items");
            for (int i = 0; i < elements; i += 3) {
                items.add(readTriple(tuple.parts(), i));
            }
            out.add(row);
        }
        return out;
    }

    private byte[] writeBatch(JsonNode values, ArrayNode outer) throws WireError, IOException {
        if (values.size() == 0) {
            return codec.encode(outer.add(Codec.typed("nil")));
        }
        int n = values.get(0).path("items").size();
        List<ObjectNode> rows = new ArrayList<>();
        for (JsonNode value : values) {
            JsonNode items = value.path("items");
            if (!"array".equals(value.path("type").textValue()) || !items.isArray() || items.size() == 0
                    || items.size() != n) {
                throw WireError.unrepresentable("batched arguments: rows of " + items.size() + " and " + n
                        + " arguments (one row length >= 1 is written)");
            }
            List<byte[]> triples = new ArrayList<>();
            for (JsonNode item : items) {
                triples.addAll(triple(item));
            }
            rows.add(bin(writeTuple(triples, null)));
        }
        outer.add(Codec.typed("int").put("value", Integer.toString(n)));
        outer.add(Codec.typed("int").put("value", Integer.toString(values.size())));
        outer.add(Codec.typed("bool").put("value", false));
        outer.addAll(rows);
        return codec.encode(outer);
    }

    private static ObjectNode bin(byte[] bytes) {
        return Codec.typed("bin").put("hex", Hex.of(bytes));
    }
}
