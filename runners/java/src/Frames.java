import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Client frames of the Ignite 3 thin-client protocol (FRAMES.md): one frame = [IGNI magic for the handshake
 * kinds] + 4-byte big-endian length + that many bytes of MessagePack values laid out by the message kind.
 * Every value goes through Codec (msgpack-java): a frame is decoded into its list of typed values first, then a
 * Cursor walks each kind's layout over that list; encode is the mirror image, a Writer appends typed values in
 * layout order and Codec encodes the list. Nothing is allocated by a declared length or count.
 *   constants               MAGIC, response flag bits, the server-op-response ERROR bit, the sql feature names
 *   Cursor / Writer         next value (of a type), count; the checks of the fields object
 *   shared pieces           features <-> bin, extensions, uuid-list, error object, response header
 *   read* / write*          one pair per message kind
 *   decode / encode         the frame around the values (decode steps 1-6 of FRAMES.md section 4)
 */
final class Frames {
    static final byte[] MAGIC = {0x49, 0x47, 0x4e, 0x49}; // "IGNI"
    /** Frames exist in one era: UUIDs are ext 3 with little-endian halves. */
    static final String ERA = "3.0";

    // ResponseFlags
    static final int PARTITION_ASSIGNMENT = 1;
    static final int NOTIFICATION = 2;
    static final int ERROR = 4;
    static final int SERVER_OP = 8;
    /** server-op-response's flags: bit 4 is ERROR. */
    static final int SERVER_OP_RESPONSE_ERROR = 4;

    // The features sql-execute-request reads (registry frames.features[].name).
    static final String SQL_DIRECT_TX_MAPPING = "SQL_DIRECT_TX_MAPPING";
    static final String SQL_MULTISTATEMENT_SUPPORT = "SQL_MULTISTATEMENT_SUPPORT";
    static final String SQL_PARTITION_AWARENESS = "SQL_PARTITION_AWARENESS";
    // The features that bring the direct-mapping forms of tx (spec 11.6).
    static final String TX_PIGGYBACK = "TX_PIGGYBACK";
    static final String TX_DIRECT_MAPPING = "TX_DIRECT_MAPPING";

    static final List<String> KINDS = List.of("handshake-request", "handshake-response", "request", "response",
            "server-op-response", "tuple-request", "tuple-upsert-response", "tuple-get-response",
            "sql-execute-request", "tx-piggyback-response", "tx-direct-response");

    /** The kinds whose flags decide which fields follow. */
    private static final Set<String> FLAGGED = Set.of("response", "server-op-response", "tuple-upsert-response",
            "tuple-get-response", "tx-piggyback-response", "tx-direct-response");
    /** The kinds whose tx, with a direct-mapping feature, decides which fields follow. */
    private static final Set<String> WITH_TX = Set.of("tuple-request", "sql-execute-request");
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
    private static final List<String> ERROR_MEMBERS = List.of("trace_id", "code", "class_name", "message",
            "stack_trace", "extensions");

    private final Codec codec;
    /** The feature names a connection can negotiate (registry frames.features[].name). */
    private final Set<String> featureNames = new HashSet<>();
    /** The tx values that start the direct-mapping forms (registry frames.tx_ids: FIRST_DIRECT -1, DIRECT 0). */
    private static BigInteger txFirstDirect;
    private static BigInteger txDirect;

    Frames(Codec codec, JsonNode registry) {
        this.codec = codec;
        for (JsonNode feature : registry.path("frames").path("features")) {
            featureNames.add(feature.path("name").textValue());
        }
        for (JsonNode tx : registry.path("frames").path("tx_ids")) {
            if (tx.path("name").textValue().equals("FIRST_DIRECT")) {
                txFirstDirect = tx.path("id").bigIntegerValue();
            } else if (tx.path("name").textValue().equals("DIRECT")) {
                txDirect = tx.path("id").bigIntegerValue();
            }
        }
        if (txFirstDirect == null || txDirect == null || !featureNames.contains(TX_PIGGYBACK)
                || !featureNames.contains(TX_DIRECT_MAPPING)) {
            throw new IllegalStateException("schema/registry.json frames: tx_ids or the TX features are missing");
        }
    }

    /** FR-INT-RANGE: an "int" field is what Java reads with unpackInt, a "long" field with unpackLong; both are
     * typed ints, and a "count" is any typed int (bounded by the values present). */
    private static String wire(String type) {
        return type.equals("long") || type.equals("count") ? "int" : type;
    }

    /** Whether a typed int is outside the range of field type {@code type} (int: 32 bits, long: 64). */
    private static boolean outOfRange(JsonNode typedInt, String type) {
        int bits = type.equals("int") ? 31 : type.equals("long") ? 63 : Integer.MAX_VALUE;
        return intOf(typedInt).bitLength() > bits;
    }

    private static boolean hasMagic(String kind) {
        return kind.startsWith("handshake-");
    }

    private static WireError fieldType(String message) {
        return new WireError("frame.field-type", message);
    }

    private static WireError fieldsError(String message) {
        return new WireError("frame.fields", message);
    }

    /** The number of a typed int. */
    private static BigInteger intOf(JsonNode typedInt) {
        return new BigInteger(Fields.text(typedInt, "value"));
    }

    private static boolean isTyped(JsonNode value, String type) {
        return value.isObject() && type.equals(value.path("type").textValue());
    }

    /** Whether arguments_tuple follows this arguments_count: neither nil nor the int 0 (spec 11.7); a count of the
     * wrong type brings it too (its own type is refused in turn). */
    private static boolean bringsTuple(JsonNode count) {
        return !isTyped(count, "nil") && !(isTyped(count, "int") && "0".equals(count.path("value").asText()));
    }

    // ---------------------------------------------------------------- decode

    /** The frame's message as named fields (FRAMES.md section 4, steps 1 to 6 in that order). */
    ObjectNode decode(String kind, byte[] frame, Set<String> features) throws WireError, IOException {
        checkKind(kind);
        int at = 0;
        if (hasMagic(kind)) { // 1
            if (frame.length < MAGIC.length) {
                throw WireError.truncated("input ends inside the magic (" + frame.length + " bytes)");
            }
            if (!Arrays.equals(frame, 0, MAGIC.length, MAGIC, 0, MAGIC.length)) {
                throw new WireError("frame.magic", "expected 'IGNI' (49474e49), got "
                        + Hex.of(Arrays.copyOf(frame, MAGIC.length)));
            }
            at = MAGIC.length;
        }
        if (frame.length - at < 4) { // 2
            throw WireError.truncated("input ends inside the 4-byte length");
        }
        int length = (frame[at] & 0xff) << 24 | (frame[at + 1] & 0xff) << 16 | (frame[at + 2] & 0xff) << 8
                | (frame[at + 3] & 0xff);
        at += 4;
        if (length < 0) {
            throw new WireError("frame.length", "length " + Integer.toUnsignedString(length) + " has the top bit set");
        }
        if (frame.length - at < length) { // 3
            throw WireError.truncated("length declares " + length + " bytes, " + (frame.length - at) + " follow");
        }
        Cursor in = new Cursor(codec.decode(Arrays.copyOfRange(frame, at, at + length), ERA)); // 4
        ObjectNode fields = JSON.objectNode();
        read(kind, in, fields, features); // 5
        in.end();
        if (at + length != frame.length) { // 6
            throw new WireError("frame.trailing", (frame.length - at - length) + " bytes after the frame");
        }
        return fields;
    }

    private static void checkKind(String kind) {
        if (!KINDS.contains(kind)) {
            throw new IllegalArgumentException("unknown frame kind '" + kind + "'");
        }
    }

    /** Walks the decoded values of one message: the cursor of every read function. */
    private static final class Cursor {
        private final Iterator<JsonNode> values;
        private int index; // values read so far: the 1-based position of the last one, for messages

        Cursor(ArrayNode values) {
            this.values = values.iterator();
        }

        JsonNode next(String field) throws WireError {
            if (!values.hasNext()) {
                throw WireError.truncated("the message ends before field '" + field + "'");
            }
            index++;
            return values.next();
        }

        /** The next value, which must be of typed type {@code type}. */
        JsonNode next(String field, String type) throws WireError {
            return check(field, next(field), type);
        }

        /** The next value: nil or of type {@code type}. */
        JsonNode nullable(String field, String type) throws WireError {
            JsonNode value = next(field);
            return isTyped(value, "nil") ? value : check(field, value, type);
        }

        JsonNode check(String field, JsonNode value, String type) throws WireError {
            if (!isTyped(value, wire(type))) {
                throw fieldType("field '" + field + "' (value " + index + ") is " + value.path("type").textValue()
                        + ", not " + type);
            }
            if (isTyped(value, "int") && outOfRange(value, type)) {
                throw fieldType("field '" + field + "' is " + intOf(value) + ", outside the field's " + type + " range");
            }
            return value;
        }

        /** A count: an int >= 0 (the values it counts are read one by one, nothing is allocated by it). */
        BigInteger count(String field) throws WireError {
            return count(field, next(field));
        }

        /** The count {@code value} (already read) of field {@code field}. */
        BigInteger count(String field, JsonNode value) throws WireError {
            BigInteger count = intOf(check(field, value, "count"));
            if (count.signum() < 0) {
                throw fieldType("field '" + field + "' is a negative count (" + count + ")");
            }
            return count;
        }

        /** Every remaining value (a payload). */
        ArrayNode rest() {
            ArrayNode rest = JSON.arrayNode();
            while (values.hasNext()) {
                rest.add(values.next());
            }
            return rest;
        }

        void end() throws WireError {
            if (values.hasNext()) {
                throw new WireError("frame.trailing", "values left after the message's last field (value "
                        + index + " on)");
            }
        }
    }

    // ---------------------------------------------------------------- encode

    /** The frame of the message {@code fields} describes: length-prefixed, with the magic for handshake kinds. */
    byte[] encode(String kind, JsonNode fields, Set<String> features) throws WireError, IOException {
        checkKind(kind);
        Set<String> unknown = new TreeSet<>(features);
        unknown.removeAll(featureNames);
        if (!unknown.isEmpty()) { // before anything else: the features decide which fields the layout has
            throw fieldsError("unknown feature names " + unknown + " (registry frames.features)");
        }
        if (!fields.isObject()) {
            throw fieldsError("'fields' is not an object");
        }
        JsonNode flags = fields.get("flags");
        if (FLAGGED.contains(kind) && flags != null && !isTyped(flags, "int")) {
            // Before anything else: the flags decide which fields the layout has.
            throw fieldType("field 'flags' is not a typed int, so the layout is unknown");
        }
        JsonNode tx = fields.get("tx");
        if (WITH_TX.contains(kind) && (features.contains(TX_PIGGYBACK) || features.contains(TX_DIRECT_MAPPING))
                && tx != null && !isTyped(tx, "int") && !isTyped(tx, "nil")) {
            // Likewise: with a direct-mapping feature, tx's value decides which fields follow (spec 11.6).
            throw fieldType("field 'tx' is neither a typed int nor nil, so the layout is unknown");
        }
        Writer out = new Writer(fields);
        write(kind, out, features);
        byte[] body = codec.encode(out.finish());
        int at = hasMagic(kind) ? MAGIC.length : 0;
        byte[] frame = new byte[at + 4 + body.length];
        System.arraycopy(MAGIC, 0, frame, 0, at);
        for (int i = 0; i < 4; i++) {
            frame[at + i] = (byte) (body.length >>> 24 - 8 * i);
        }
        System.arraycopy(body, 0, frame, at + 4, body.length);
        return frame;
    }

    /**
     * Takes the fields object's members in layout order and appends their typed values. A missing or unknown
     * field is frame.fields at once; a field of the wrong type (or an error object with a member missing or
     * unknown) is remembered and thrown by finish(), so that a frame.fields of the object itself wins
     * (FRAMES.md: frame.fields, then frame.field-type), and otherwise the first field in layout order.
     */
    private static final class Writer {
        private final JsonNode fields;
        private final Set<String> taken = new HashSet<>();
        private final ArrayNode values = JSON.arrayNode();
        private WireError deferred;

        Writer(JsonNode fields) {
            this.fields = fields;
        }

        JsonNode take(String field) throws WireError {
            return member(fields, field, taken, "");
        }

        /** Field {@code field} of {@code object}, marked as used. */
        static JsonNode member(JsonNode object, String field, Set<String> used, String where) throws WireError {
            JsonNode value = object.get(field);
            if (value == null) {
                throw fieldsError("missing field '" + where + field + "'");
            }
            used.add(field);
            return value;
        }

        /** Refuses the members of {@code object} nothing used. */
        static void noOthers(JsonNode object, Set<String> used, String where) throws WireError {
            Set<String> unknown = new TreeSet<>();
            for (Iterator<String> names = object.fieldNames(); names.hasNext();) {
                unknown.add(names.next());
            }
            unknown.removeAll(used);
            if (!unknown.isEmpty()) {
                throw fieldsError("fields the layout has no place for: " + where + unknown);
            }
        }

        /** Remembers the first field of the wrong type (in layout order). */
        void wrongType(String message) {
            defer(fieldType(message));
        }

        /** Remembers the first error found inside a field (in layout order), thrown by finish(). */
        void defer(WireError error) {
            if (deferred == null) {
                deferred = error;
            }
        }

        /**
         * Appends a typed value after checking its type, and for an int that it fits a Java long (every int field
         * of a layout is an int or a long: 2^63 .. 2^64-1 is unrepresentable even though MessagePack holds it);
         * the first such error in layout order is remembered.
         */
        void add(String field, JsonNode value, String type) {
            if (!isTyped(value, wire(type))) {
                wrongType("field '" + field + "' is " + describe(value) + ", not " + type);
                return;
            }
            if (isTyped(value, "int") && outOfRange(value, type)) {
                defer(WireError.unrepresentable("field '" + field + "': " + intOf(value) + " is outside the field's "
                        + type + " range"));
                return;
            }
            values.add(type.equals("uuid") && !value.has("era") ? ((ObjectNode) value.deepCopy()).put("era", ERA)
                    : value);
        }

        void value(String field, String type) throws WireError {
            add(field, take(field), type);
        }

        void nullable(String field, String type) throws WireError {
            JsonNode value = take(field);
            if (isTyped(value, "nil")) {
                values.add(value);
            } else {
                add(field, value, type);
            }
        }

        /** An int field whose value decides the layout (flags, checked by encode to be an int). */
        BigInteger integer(String field) throws WireError {
            JsonNode value = take(field);
            add(field, value, "int");
            return intOf(value);
        }

        /** Field {@code field}, a JSON array of {@code what}; null (and remembered) if it is no array. */
        JsonNode array(String field, String what) throws WireError {
            return array(field, take(field), what);
        }

        JsonNode array(String field, JsonNode value, String what) {
            if (value.isArray()) {
                return value;
            }
            wrongType("field '" + field + "' is not an array of " + what);
            return null;
        }

        void count(long n) {
            values.add(Codec.typed("int").put("value", Long.toString(n)));
        }

        void raw(JsonNode typed) {
            values.add(typed);
        }

        ArrayNode finish() throws WireError {
            noOthers(fields, taken, "");
            if (deferred != null) {
                throw deferred;
            }
            return values;
        }

        private static String describe(JsonNode value) {
            return value.isObject() && value.has("type") ? "typed " + value.get("type") : "JSON " + value.getNodeType();
        }
    }

    // ---------------------------------------------------------------- shared pieces

    /** features: a bin, bit i = byte i/8, bit i%8 (as a BITMASK payload); any length (trailing zero bytes too). */
    private static ArrayNode readFeatures(Cursor in, String field) throws WireError {
        return IgniteExt.bitIndices(Hex.parse(in.next(field, "bin").get("hex").textValue()));
    }

    /** The minimal bin (no trailing zero bytes; the empty set is an empty bin), as BitSet.toByteArray. */
    private static void writeFeatures(Writer out, String field) throws WireError {
        JsonNode indices = out.array(field, "bit indices");
        if (indices == null) {
            return;
        }
        BigInteger previous = BigInteger.ONE.negate();
        for (JsonNode index : indices) {
            if (!index.isIntegralNumber() || index.bigIntegerValue().signum() < 0) {
                out.wrongType("field '" + field + "' has a bit index that is not an int >= 0: " + index);
                return;
            }
            if (index.bigIntegerValue().compareTo(previous) <= 0) { // FR-FEATURES-ORDER
                out.wrongType("field '" + field + "': bit index " + index + " after " + previous
                        + " is not strictly ascending");
                return;
            }
            previous = index.bigIntegerValue();
        }
        out.raw(Codec.typed("bin").put("hex", Hex.of(IgniteExt.bitmask(indices))));
    }

    /** extensions: a count, then that many (str key, one value of any type) pairs. */
    private static ArrayNode readExtensions(Cursor in, String field) throws WireError {
        return readPairs(in, field, in.count(field));
    }

    /** {@code count} pairs, read one by one: a count larger than the values present runs out (truncated). */
    private static ArrayNode readPairs(Cursor in, String field, BigInteger count) throws WireError {
        ArrayNode pairs = JSON.arrayNode();
        for (BigInteger i = count; i.signum() > 0; i = i.subtract(BigInteger.ONE)) {
            String key = in.next(field + " key", "str").get("value").textValue();
            pairs.addArray().add(key).add(in.next(field + " value of '" + key + "'"));
        }
        return pairs;
    }

    private static void writeExtensions(Writer out, String field, JsonNode value) {
        JsonNode pairs = out.array(field, value, "[key, typed value] pairs");
        if (pairs == null) {
            return;
        }
        for (JsonNode pair : pairs) {
            if (!pair.isArray() || pair.size() != 2 || !pair.get(0).isTextual() || !pair.get(1).isObject()) {
                out.wrongType("field '" + field + "' has an entry that is not a [key, typed value] pair: " + pair);
                return;
            }
        }
        out.count(pairs.size());
        for (JsonNode pair : pairs) {
            out.raw(Codec.typed("str").put("value", pair.get(0).textValue()));
            out.raw(pair.get(1));
        }
    }

    /** error-extensions: nil, or extensions. */
    private static JsonNode readErrorExtensions(Cursor in, String field) throws WireError {
        JsonNode first = in.next(field);
        return isTyped(first, "nil") ? first : readPairs(in, field, in.count(field, first));
    }

    private static ArrayNode readUuidList(Cursor in, String field) throws WireError {
        ArrayNode uuids = JSON.arrayNode();
        for (BigInteger i = in.count(field); i.signum() > 0; i = i.subtract(BigInteger.ONE)) {
            uuids.add(in.next(field, "uuid"));
        }
        return uuids;
    }

    private static void writeUuidList(Writer out, String field) throws WireError {
        JsonNode uuids = out.array(field, "typed uuids");
        if (uuids == null) {
            return;
        }
        out.count(uuids.size());
        for (JsonNode uuid : uuids) {
            out.add(field, uuid, "uuid");
        }
    }

    /** The error object: six consecutive values, the first of them already read ({@code traceId}). */
    private static ObjectNode readError(Cursor in, JsonNode traceId) throws WireError {
        ObjectNode error = JSON.objectNode();
        error.set("trace_id", in.check("error.trace_id", traceId, "uuid"));
        error.set("code", in.next("error.code", "int"));
        error.set("class_name", in.next("error.class_name", "str"));
        error.set("message", in.nullable("error.message", "str"));
        error.set("stack_trace", in.nullable("error.stack_trace", "str"));
        error.set("extensions", readErrorExtensions(in, "error.extensions"));
        return error;
    }

    private static void writeError(Writer out, JsonNode error) throws WireError {
        if (!error.isObject() || error.has("type")) {
            out.wrongType("field 'error' is not an error object");
            return;
        }
        Set<String> used = new HashSet<>();
        try { // the error object's members are checked where it stands in the layout
            for (String member : ERROR_MEMBERS) {
                Writer.member(error, member, used, "error.");
            }
            Writer.noOthers(error, used, "error.");
        } catch (WireError e) {
            out.defer(e);
            return;
        }
        out.add("error.trace_id", error.get("trace_id"), "uuid");
        out.add("error.code", error.get("code"), "int");
        out.add("error.class_name", error.get("class_name"), "str");
        for (String member : List.of("message", "stack_trace")) {
            JsonNode text = error.get(member);
            if (isTyped(text, "nil")) {
                out.raw(text);
            } else {
                out.add("error." + member, text, "str");
            }
        }
        JsonNode extensions = error.get("extensions");
        if (isTyped(extensions, "nil")) {
            out.raw(extensions);
        } else {
            writeExtensions(out, "error.extensions", extensions);
        }
    }

    /** request_id, flags, [partition_assignment_timestamp], observable_timestamp, [error]; returns the flags. */
    private static BigInteger readResponseHeader(Cursor in, ObjectNode fields) throws WireError {
        fields.set("request_id", in.next("request_id", "long"));
        fields.set("flags", in.next("flags", "int"));
        BigInteger flags = intOf(fields.get("flags"));
        if (flags.testBit(0)) { // PARTITION_ASSIGNMENT
            fields.set("partition_assignment_timestamp", in.next("partition_assignment_timestamp", "long"));
        }
        fields.set("observable_timestamp", in.next("observable_timestamp", "long"));
        if (isSet(flags, ERROR)) {
            fields.set("error", readError(in, in.next("error.trace_id")));
        }
        return flags;
    }

    private static BigInteger writeResponseHeader(Writer out) throws WireError {
        out.value("request_id", "long");
        BigInteger flags = out.integer("flags");
        if (isSet(flags, PARTITION_ASSIGNMENT)) {
            out.value("partition_assignment_timestamp", "long");
        }
        out.value("observable_timestamp", "long");
        if (isSet(flags, ERROR)) {
            writeError(out, out.take("error"));
        }
        return flags;
    }

    private static boolean isSet(BigInteger flags, int bit) {
        return flags.testBit(Integer.numberOfTrailingZeros(bit));
    }

    // ---------------------------------------------------------------- the message kinds

    private static void read(String kind, Cursor in, ObjectNode fields, Set<String> features) throws WireError {
        switch (kind) {
            case "handshake-request":
                readVersion(in, fields);
                fields.set("client_code", in.next("client_code", "int"));
                fields.set("features", readFeatures(in, "features"));
                fields.set("extensions", readExtensions(in, "extensions"));
                return;
            case "handshake-response":
                readHandshakeResponse(in, fields);
                return;
            case "request":
                fields.set("op", in.next("op", "int"));
                fields.set("request_id", in.next("request_id", "long"));
                fields.set("payload", in.rest());
                return;
            case "response":
                BigInteger flags = readResponseHeader(in, fields);
                if (!isSet(flags, ERROR)) {
                    if (isSet(flags, SERVER_OP)) {
                        fields.set("server_op", in.next("server_op", "int"));
                    }
                    fields.set("payload", in.rest());
                }
                return;
            case "server-op-response":
                fields.set("op", in.next("op", "int"));
                fields.set("request_id", in.next("request_id", "long"));
                fields.set("flags", in.next("flags", "int"));
                if (isSet(intOf(fields.get("flags")), SERVER_OP_RESPONSE_ERROR)) {
                    fields.set("error", readError(in, in.next("error.trace_id")));
                } else {
                    fields.set("payload", in.rest());
                }
                return;
            case "tuple-request":
                fields.set("op", in.next("op", "int"));
                fields.set("request_id", in.next("request_id", "long"));
                fields.set("table_id", in.next("table_id", "int"));
                readTx(in, fields, features);
                fields.set("schema_version", in.next("schema_version", "int"));
                fields.set("no_value_set", in.next("no_value_set", "bitmask"));
                fields.set("tuple", in.next("tuple", "bin"));
                return;
            case "tuple-upsert-response":
            case "tuple-get-response":
                if (!isSet(readResponseHeader(in, fields), ERROR)) {
                    fields.set("schema_version", in.next("schema_version", "int"));
                    if (kind.equals("tuple-get-response")) {
                        fields.set("tuple", in.nullable("tuple", "bin"));
                    }
                }
                return;
            case "sql-execute-request":
                readSqlExecute(in, fields, features);
                return;
            case "tx-piggyback-response":
            case "tx-direct-response":
                if (!isSet(readResponseHeader(in, fields), ERROR)) {
                    for (String[] meta : kind.equals("tx-piggyback-response") ? TX_PIGGYBACK_META : TX_DIRECT_META) {
                        fields.set(meta[0], in.next(meta[0], meta[1]));
                    }
                    fields.set("payload", in.rest());
                }
                return;
            default:
                throw new IllegalStateException(kind);
        }
    }

    private static void write(String kind, Writer out, Set<String> features) throws WireError {
        switch (kind) {
            case "handshake-request":
                writeVersion(out);
                out.value("client_code", "int");
                writeFeatures(out, "features");
                writeExtensions(out, "extensions", out.take("extensions"));
                return;
            case "handshake-response":
                writeHandshakeResponse(out);
                return;
            case "request":
                out.value("op", "int");
                out.value("request_id", "long");
                writePayload(out);
                return;
            case "response":
                BigInteger flags = writeResponseHeader(out);
                if (!isSet(flags, ERROR)) {
                    if (isSet(flags, SERVER_OP)) {
                        out.value("server_op", "int");
                    }
                    writePayload(out);
                }
                return;
            case "server-op-response":
                out.value("op", "int");
                out.value("request_id", "long");
                if (isSet(out.integer("flags"), SERVER_OP_RESPONSE_ERROR)) {
                    writeError(out, out.take("error"));
                } else {
                    writePayload(out);
                }
                return;
            case "tuple-request":
                out.value("op", "int");
                out.value("request_id", "long");
                out.value("table_id", "int");
                writeTx(out, features);
                out.value("schema_version", "int");
                out.value("no_value_set", "bitmask");
                out.value("tuple", "bin");
                return;
            case "tuple-upsert-response":
            case "tuple-get-response":
                if (!isSet(writeResponseHeader(out), ERROR)) {
                    out.value("schema_version", "int");
                    if (kind.equals("tuple-get-response")) {
                        out.nullable("tuple", "bin");
                    }
                }
                return;
            case "sql-execute-request":
                writeSqlExecute(out, features);
                return;
            case "tx-piggyback-response":
            case "tx-direct-response":
                if (!isSet(writeResponseHeader(out), ERROR)) {
                    for (String[] meta : kind.equals("tx-piggyback-response") ? TX_PIGGYBACK_META : TX_DIRECT_META) {
                        out.value(meta[0], meta[1]);
                    }
                    writePayload(out);
                }
                return;
            default:
                throw new IllegalStateException(kind);
        }
    }

    private static final List<String> VERSION = List.of("version_major", "version_minor", "version_patch");

    /** The fields after tx -1 (TX_PIGGYBACK) and tx 0 (TX_DIRECT_MAPPING), in wire order (spec 11.6). */
    private static final List<String[]> TX_PIGGYBACK_FIELDS = List.of(new String[] {"tx_observable_timestamp", "long"},
            new String[] {"tx_read_only", "bool"}, new String[] {"tx_timeout", "long"});
    private static final List<String[]> TX_DIRECT_FIELDS = List.of(new String[] {"tx_enlistment_token", "long"},
            new String[] {"tx_id", "uuid"}, new String[] {"tx_commit_table_id", "int"},
            new String[] {"tx_commit_partition", "int"}, new String[] {"tx_coordinator_id", "uuid"},
            new String[] {"tx_timeout", "long"});
    /** writeTxMeta's fields before the op's payload, in the responses to those two forms. */
    private static final List<String[]> TX_PIGGYBACK_META = List.of(new String[] {"tx_resource_id", "long"},
            new String[] {"tx_id", "uuid"}, new String[] {"tx_coordinator_id", "uuid"}, new String[] {"tx_timeout", "long"});
    private static final List<String[]> TX_DIRECT_META = List.of(new String[] {"tx_primary_node", "str"},
            new String[] {"tx_enlistment_token", "long"}, new String[] {"tx_noop", "bool"});

    /** The fields tx brings: its value with the features negotiated (a tx value is a typed int or nil). */
    private static List<String[]> txForm(JsonNode tx, Set<String> features) {
        if (isTyped(tx, "int") && intOf(tx).equals(txFirstDirect) && features.contains(TX_PIGGYBACK)) {
            return TX_PIGGYBACK_FIELDS;
        }
        if (isTyped(tx, "int") && intOf(tx).equals(txDirect) && features.contains(TX_DIRECT_MAPPING)) {
            return TX_DIRECT_FIELDS;
        }
        return List.of();
    }

    private static void readTx(Cursor in, ObjectNode fields, Set<String> features) throws WireError {
        JsonNode tx = in.nullable("tx", "long");
        fields.set("tx", tx);
        for (String[] field : txForm(tx, features)) {
            fields.set(field[0], in.next(field[0], field[1]));
        }
    }

    private static void writeTx(Writer out, Set<String> features) throws WireError {
        out.nullable("tx", "long");
        for (String[] field : txForm(out.fields.get("tx"), features)) {
            out.value(field[0], field[1]);
        }
    }

    private static void readVersion(Cursor in, ObjectNode fields) throws WireError {
        for (String field : VERSION) {
            fields.set(field, in.next(field, "int"));
        }
    }

    private static void writeVersion(Writer out) throws WireError {
        for (String field : VERSION) {
            out.value(field, "int");
        }
    }

    private static void writePayload(Writer out) throws WireError {
        JsonNode payload = out.array("payload", "typed values");
        if (payload == null) {
            return;
        }
        for (JsonNode value : payload) {
            if (!value.isObject()) {
                out.wrongType("field 'payload' has an item that is not a typed value: " + value);
                return;
            }
        }
        out.values.addAll((ArrayNode) payload);
    }

    /** On error the message ends after the error object; on success (nil) the server's description follows. */
    private static void readHandshakeResponse(Cursor in, ObjectNode fields) throws WireError {
        readVersion(in, fields);
        JsonNode error = in.next("error");
        if (!isTyped(error, "nil")) {
            fields.set("error", readError(in, error));
            return;
        }
        fields.set("error", error);
        fields.set("idle_timeout", in.next("idle_timeout", "long"));
        fields.set("node_id", in.next("node_id", "uuid"));
        fields.set("node_name", in.next("node_name", "str"));
        fields.set("cluster_ids", readUuidList(in, "cluster_ids"));
        fields.set("cluster_name", in.next("cluster_name", "str"));
        fields.set("observable_timestamp", in.next("observable_timestamp", "long"));
        fields.set("product_major", in.next("product_major", "int"));
        fields.set("product_minor", in.next("product_minor", "int"));
        fields.set("product_maintenance", in.next("product_maintenance", "int"));
        fields.set("product_patch", in.nullable("product_patch", "int"));
        fields.set("product_pre_release", in.nullable("product_pre_release", "str"));
        fields.set("features", readFeatures(in, "features"));
        fields.set("extensions", readExtensions(in, "extensions"));
    }

    private static void writeHandshakeResponse(Writer out) throws WireError {
        writeVersion(out);
        JsonNode error = out.take("error");
        if (!isTyped(error, "nil")) {
            writeError(out, error);
            return;
        }
        out.raw(error);
        out.value("idle_timeout", "long");
        out.value("node_id", "uuid");
        out.value("node_name", "str");
        writeUuidList(out, "cluster_ids");
        out.value("cluster_name", "str");
        out.value("observable_timestamp", "long");
        out.value("product_major", "int");
        out.value("product_minor", "int");
        out.value("product_maintenance", "int");
        out.nullable("product_patch", "int");
        out.nullable("product_pre_release", "str");
        writeFeatures(out, "features");
        writeExtensions(out, "extensions", out.take("extensions"));
    }

    /** The nullable str/int settings between tx and property_count, in wire order. */
    private static final List<String[]> SQL_SETTINGS = List.of(new String[] {"schema", "str"},
            new String[] {"page_size", "int"}, new String[] {"query_timeout", "long"},
            new String[] {"idle_timeout", "long"}, new String[] {"time_zone", "str"});

    private static void readSqlExecute(Cursor in, ObjectNode fields, Set<String> features) throws WireError {
        fields.set("op", in.next("op", "int"));
        fields.set("request_id", in.next("request_id", "long"));
        if (features.contains(SQL_DIRECT_TX_MAPPING)) {
            fields.set("direct_tx_mapping", in.next("direct_tx_mapping", "bool"));
        }
        readTx(in, fields, features);
        for (String[] setting : SQL_SETTINGS) {
            fields.set(setting[0], in.nullable(setting[0], setting[1]));
        }
        fields.set("property_count", in.next("property_count", "int"));
        fields.set("properties", in.next("properties", "bin"));
        if (features.contains(SQL_MULTISTATEMENT_SUPPORT)) {
            fields.set("query_modifiers", in.next("query_modifiers", "int"));
        }
        fields.set("statement", in.next("statement", "str"));
        JsonNode argumentsCount = in.nullable("arguments_count", "int");
        fields.set("arguments_count", argumentsCount);
        if (bringsTuple(argumentsCount)) {
            fields.set("arguments_tuple", in.next("arguments_tuple", "bin"));
        }
        fields.set("observable_timestamp", in.next("observable_timestamp", "long"));
        if (features.contains(SQL_PARTITION_AWARENESS)) {
            fields.set("partition_awareness", in.next("partition_awareness", "bool"));
        }
    }

    private static void writeSqlExecute(Writer out, Set<String> features) throws WireError {
        out.value("op", "int");
        out.value("request_id", "long");
        if (features.contains(SQL_DIRECT_TX_MAPPING)) {
            out.value("direct_tx_mapping", "bool");
        }
        writeTx(out, features);
        for (String[] setting : SQL_SETTINGS) {
            out.nullable(setting[0], setting[1]);
        }
        out.value("property_count", "int");
        out.value("properties", "bin");
        if (features.contains(SQL_MULTISTATEMENT_SUPPORT)) {
            out.value("query_modifiers", "int");
        }
        out.value("statement", "str");
        JsonNode argumentsCount = out.take("arguments_count");
        if (isTyped(argumentsCount, "nil")) {
            out.raw(argumentsCount);
        } else {
            out.add("arguments_count", argumentsCount, "int");
            if (bringsTuple(argumentsCount)) {
                out.value("arguments_tuple", "bin");
            }
        }
        out.value("observable_timestamp", "long");
        if (features.contains(SQL_PARTITION_AWARENESS)) {
            out.value("partition_awareness", "bool");
        }
    }
}
