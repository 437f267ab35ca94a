import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Client frames of the Ignite 3 thin-client protocol (spec.md 11) <-> named fields, on the runner's
 * value codec (Codec, msgpack-java). A frame is [IGNI magic, handshake kinds only] + 4-byte big-endian length +
 * that many bytes of MessagePack: values laid out by the message kind. The four parts every runner's frame codec
 * has, in this order (runners/PROTOCOL.md "The frame codec: one shape in every runner"):
 *   layouts               the registry's frame_layouts, loaded at start; no message kind is named in this file
 *   holds                 the one condition evaluator, used by both directions
 *   readLayout / read     a Cursor over the decoded typed values, read(field type) per field, then FR-TRAILING
 *   writeLayout / write   the wanted fields of the given object first (frame.fields), then write(field type)
 *                         per field into a Writer, whose typed values Codec encodes
 * Nothing is allocated from a declared length or count: counts are walked value by value.
 */
final class Frames {
    static final byte[] MAGIC = {0x49, 0x47, 0x4e, 0x49}; // "IGNI", before the length of the handshake kinds
    /** Frames exist in one era: UUIDs are ext 3 with little-endian halves. */
    static final String ERA = "3.0";
    private static final int LENGTH_BYTES = 4;
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
    /** The field types of registry.schema.json $defs/frame_field (without the '?'): read and write's cases. */
    private static final Set<String> TYPES = Set.of("int", "long", "bool", "str", "bin", "uuid", "bitmask",
            "features", "extensions", "uuid-list", "error", "payload");
    /** The condition forms of registry.schema.json $defs/frame_condition: holds's cases. */
    private static final Set<String> CONDITIONS = Set.of("flags", "nil", "feature", "tx_form", "not_nil_or_zero");

    // ---------------------------------------------------------------- layouts (registry frame_layouts)

    /** One field of a layout, in wire order: its type without the '?' (nullable: nil may stand instead). */
    private static final class Field {
        final String name;
        final String type;
        final boolean nullable;
        final JsonNode when; // a registry frame_condition; null: always present

        Field(JsonNode field) {
            String declared = field.path("type").asText();
            name = field.path("name").asText();
            nullable = declared.endsWith("?");
            type = nullable ? declared.substring(0, declared.length() - 1) : declared;
            when = field.get("when");
            // A type or condition form this file has no case for stops the runner at start, not at a frame.
            if (!TYPES.contains(type)) {
                throw new IllegalStateException("registry frame_layouts: field '" + name + "' has unknown type '"
                        + declared + "'");
            }
            if (when != null && (when.size() != 1 || !CONDITIONS.contains(when.fieldNames().next()))) {
                throw new IllegalStateException("registry frame_layouts: field '" + name + "' has unknown condition "
                        + when);
            }
        }
    }

    private final Codec codec;
    /** The feature names a connection can negotiate (registry frames.features[].name): encode refuses others. */
    private final Set<String> featureNames = new HashSet<>();
    private final Map<String, List<Field>> layouts = new HashMap<>();
    private final Set<String> withMagic = new HashSet<>();
    private final List<Field> errorObject;

    Frames(Codec codec, JsonNode registry) {
        this.codec = codec;
        for (JsonNode feature : registry.path("frames").path("features")) {
            featureNames.add(feature.path("name").textValue());
        }
        JsonNode frameLayouts = registry.path("frame_layouts");
        for (JsonNode message : frameLayouts.path("messages")) {
            String kind = message.path("kind").asText();
            layouts.put(kind, fields(message.path("fields")));
            if (message.path("magic").asBoolean()) {
                withMagic.add(kind);
            }
        }
        errorObject = fields(frameLayouts.path("error_object"));
        if (layouts.isEmpty() || errorObject.isEmpty()) {
            throw new IllegalStateException("schema/registry.json has no frame_layouts");
        }
    }

    private static List<Field> fields(JsonNode layout) {
        List<Field> fields = new ArrayList<>();
        for (JsonNode field : layout) {
            fields.add(new Field(field));
        }
        return fields;
    }

    private List<Field> layout(String kind) {
        List<Field> fields = layouts.get(kind);
        if (fields == null) {
            throw new IllegalArgumentException("unknown frame kind '" + kind + "'");
        }
        return fields;
    }

    /**
     * Whether a field with condition {@code when} (registry.schema.json $defs/frame_condition) is present, over
     * the fields laid out so far (typed values: as read, or as given to encode) and the negotiated features. A
     * condition on a field encode was not given does not hold: the missing field is what encode reports. The only
     * field names known here are the ones the forms name: 'flags' and 'tx'.
     */
    static boolean holds(JsonNode when, JsonNode fields, Set<String> features) throws WireError {
        if (when == null) {
            return true;
        }
        if (when.has("flags")) {
            JsonNode flags = fields.get("flags");
            if (flags == null) {
                return false;
            }
            if (!isTyped(flags, "int")) { // before anything else: the flags decide which fields the layout has
                throw fieldType("field 'flags' is " + describe(flags) + ", not int, so the layout is unknown");
            }
            return intOf(flags).and(when.get("flags").get("mask").bigIntegerValue())
                    .equals(when.get("flags").get("equals").bigIntegerValue());
        }
        if (when.has("nil")) {
            JsonNode value = fields.get(when.get("nil").asText());
            return value != null && isTyped(value, "nil");
        }
        if (when.has("feature")) {
            return features.contains(when.get("feature").asText());
        }
        if (when.has("not_nil_or_zero")) {
            JsonNode value = fields.get(when.get("not_nil_or_zero").asText());
            return value != null && !isTyped(value, "nil")
                    && !(isTyped(value, "int") && "0".equals(value.path("value").asText()));
        }
        JsonNode form = when.get("tx_form"); // a direct-mapping form of tx (spec 11.6)
        JsonNode tx = fields.get("tx");
        if (!features.contains(form.get("feature").asText()) || tx == null) {
            return false;
        }
        if (!isTyped(tx, "int") && !isTyped(tx, "nil")) { // with the feature, tx's value decides the layout
            throw fieldType("field 'tx' is " + describe(tx) + ", neither int nor nil, so the layout is unknown");
        }
        return isTyped(tx, "int") && intOf(tx).equals(form.get("tx").bigIntegerValue());
    }

    // ---------------------------------------------------------------- decode

    /** The frame's message as named fields (spec.md 11.1, steps 1 to 6 in that order). */
    ObjectNode decode(String kind, byte[] frame, Set<String> features) throws WireError, IOException {
        List<Field> fields = layout(kind);
        int at = 0;
        if (withMagic.contains(kind)) { // 1
            if (frame.length < MAGIC.length) {
                throw WireError.truncated("input ends inside the magic (" + frame.length + " bytes)");
            }
            if (!Arrays.equals(frame, 0, MAGIC.length, MAGIC, 0, MAGIC.length)) {
                throw new WireError("frame.magic", "expected 'IGNI' (49474e49), got "
                        + Hex.of(Arrays.copyOf(frame, MAGIC.length)));
            }
            at = MAGIC.length;
        }
        if (frame.length - at < LENGTH_BYTES) { // 2
            throw WireError.truncated("input ends inside the 4-byte length");
        }
        int length = (frame[at] & 0xff) << 24 | (frame[at + 1] & 0xff) << 16 | (frame[at + 2] & 0xff) << 8
                | (frame[at + 3] & 0xff);
        at += LENGTH_BYTES;
        if (length < 0) {
            throw new WireError("frame.length", "length " + Integer.toUnsignedString(length) + " has the top bit set");
        }
        if (frame.length - at < length) { // 3
            throw WireError.truncated("length declares " + length + " bytes, " + (frame.length - at) + " follow");
        }
        Cursor in = new Cursor(codec.decode(Arrays.copyOfRange(frame, at, at + length), ERA)); // 4
        ObjectNode message = readLayout(in, fields, features, ""); // 5
        if (in.at < in.values.size()) {
            throw new WireError("frame.trailing", (in.values.size() - in.at) + " values after the message's last field"
                    + " (value " + (in.at + 1) + " on)");
        }
        if (at + length != frame.length) { // 6
            throw new WireError("frame.trailing", (frame.length - at - length) + " bytes after the frame");
        }
        return message;
    }

    /** The frame's values in order; every read names the field it is for, so an error says where. */
    private static final class Cursor {
        final ArrayNode values;
        int at; // values read so far

        Cursor(ArrayNode values) {
            this.values = values;
        }

        JsonNode next(String field) throws WireError {
            if (at >= values.size()) {
                throw WireError.truncated("the message ends before field '" + field + "' (" + values.size()
                        + " values)");
            }
            return values.get(at++);
        }

        boolean peekNil() {
            return at < values.size() && isTyped(values.get(at), "nil");
        }

        /** The next value, of typed type {@code type}; an int field (int, long) within its range (FR-INT-RANGE). */
        JsonNode typed(String field, String type) throws WireError {
            JsonNode value = next(field);
            if (!isTyped(value, wireType(type))) {
                throw fieldType("field '" + field + "' (value " + at + ") is " + value.path("type").textValue()
                        + ", not " + type);
            }
            if (outOfRange(value, type)) {
                throw fieldType("field '" + field + "' is " + intOf(value) + ", outside the field's " + type
                        + " range (FR-INT-RANGE)");
            }
            return value;
        }

        /** A count: an int >= 0. Beyond a long it is more than any frame holds: the values run out first. */
        long count(String field) throws WireError {
            BigInteger count = intOf(typed(field + " count", "count"));
            if (count.signum() < 0) {
                throw fieldType("field '" + field + "' has a negative count (" + count + ")");
            }
            return count.bitLength() > 63 ? Long.MAX_VALUE : count.longValue();
        }
    }

    private ObjectNode readLayout(Cursor in, List<Field> layout, Set<String> features, String prefix)
            throws WireError {
        ObjectNode fields = JSON.objectNode();
        for (Field field : layout) {
            if (holds(field.when, fields, features)) {
                fields.set(field.name, read(in, prefix + field.name, field));
            }
        }
        return fields;
    }

    /** The field's value in the fields notation (spec.md 11.3-11.7). */
    private JsonNode read(Cursor in, String name, Field field) throws WireError {
        if (field.nullable && in.peekNil()) {
            return in.next(name);
        }
        switch (field.type) {
            case "features": // a bin, bit i = byte i/8, bit i%8; any length (trailing zero bytes too)
                return IgniteExt.bitIndices(Hex.parse(in.typed(name, "bin").get("hex").textValue()));
            case "extensions": { // one pair per round: a count beyond the values present runs out (truncated)
                ArrayNode pairs = JSON.arrayNode();
                for (long i = 0, n = in.count(name); i < n; i++) {
                    String key = in.typed(name + "[" + i + "] key", "str").get("value").textValue();
                    pairs.addArray().add(key).add(in.next(name + "[" + i + "] value"));
                }
                return pairs;
            }
            case "uuid-list": {
                ArrayNode uuids = JSON.arrayNode();
                for (long i = 0, n = in.count(name); i < n; i++) {
                    uuids.add(in.typed(name + "[" + i + "]", "uuid"));
                }
                return uuids;
            }
            case "error":
                return readLayout(in, errorObject, Set.of(), name + ".");
            case "payload": { // every value left
                ArrayNode rest = JSON.arrayNode();
                while (in.at < in.values.size()) {
                    rest.add(in.values.get(in.at++));
                }
                return rest;
            }
            default: // int long bool str bin uuid bitmask: one typed value
                return in.typed(name, field.type);
        }
    }

    // ---------------------------------------------------------------- encode

    /** The frame of the message {@code given} describes: length-prefixed, with the magic for the handshake kinds. */
    byte[] encode(String kind, JsonNode given, Set<String> features) throws WireError, IOException {
        List<Field> fields = layout(kind);
        Set<String> unknown = new TreeSet<>(features);
        unknown.removeAll(featureNames);
        if (!unknown.isEmpty()) { // before anything else: the features decide which fields the layout has
            throw fieldsError("unknown feature names " + unknown + " (registry frames.features)");
        }
        if (!given.isObject()) {
            throw fieldsError("'fields' is not an object");
        }
        Writer out = new Writer();
        writeLayout(out, fields, given, features, "");
        byte[] body = codec.encode(out.values);
        int at = withMagic.contains(kind) ? MAGIC.length : 0;
        byte[] frame = new byte[at + LENGTH_BYTES + body.length];
        System.arraycopy(MAGIC, 0, frame, 0, at);
        for (int i = 0; i < LENGTH_BYTES; i++) {
            frame[at + i] = (byte) (body.length >>> 24 - 8 * i);
        }
        System.arraycopy(body, 0, frame, at + LENGTH_BYTES, body.length);
        return frame;
    }

    /** The typed values of a frame in wire order, each checked against its field's type. */
    private static final class Writer {
        final ArrayNode values = JSON.arrayNode();

        /**
         * Appends a typed value of type {@code type}; an int must fit its field (every int of a layout is a Java
         * int or long: 2^63 .. 2^64-1 has no field to go in, though MessagePack holds it).
         */
        void typed(String field, String type, JsonNode value) throws WireError {
            if (!isTyped(value, wireType(type))) {
                throw fieldType("field '" + field + "' is " + describe(value) + ", not " + type);
            }
            if (outOfRange(value, type)) {
                throw WireError.unrepresentable("field '" + field + "': " + intOf(value) + " is outside the field's "
                        + type + " range");
            }
            values.add(type.equals("uuid") && !value.has("era") ? ((ObjectNode) value.deepCopy()).put("era", ERA)
                    : value);
        }

        void count(int n) {
            values.add(Codec.typed("int").put("value", Integer.toString(n)));
        }
    }

    /** Checks the whole object first (missing or extra: frame.fields), then writes each field in wire order. */
    private void writeLayout(Writer out, List<Field> layout, JsonNode given, Set<String> features, String prefix)
            throws WireError {
        List<Field> wanted = new ArrayList<>();
        Set<String> names = new HashSet<>();
        Set<String> missing = new TreeSet<>();
        for (Field field : layout) {
            if (holds(field.when, given, features)) {
                wanted.add(field);
                names.add(field.name);
                if (!given.has(field.name)) {
                    missing.add(prefix + field.name);
                }
            }
        }
        if (!missing.isEmpty()) {
            throw fieldsError("missing " + String.join(", ", missing));
        }
        Set<String> extra = new TreeSet<>();
        for (Iterator<String> members = given.fieldNames(); members.hasNext();) {
            String member = members.next();
            if (!names.contains(member)) {
                extra.add(prefix + member);
            }
        }
        if (!extra.isEmpty()) {
            throw fieldsError("fields the layout has no place for (unknown, or ruled out by the flags, error or "
                    + "features): " + String.join(", ", extra));
        }
        for (Field field : wanted) {
            write(out, prefix + field.name, field, given.get(field.name));
        }
    }

    /** Appends the typed values of one field's value (the fields notation). */
    private void write(Writer out, String name, Field field, JsonNode value) throws WireError {
        if (field.nullable && isTyped(value, "nil")) {
            out.values.add(value);
            return;
        }
        switch (field.type) {
            case "features": { // the minimal bin (no trailing zero bytes; none set: an empty bin)
                arrayOf(name, value, "bit indices");
                BigInteger previous = BigInteger.ONE.negate();
                for (JsonNode index : value) {
                    if (!index.isIntegralNumber() || index.bigIntegerValue().signum() < 0) {
                        throw fieldType("field '" + name + "' has a bit index that is not an int >= 0: " + index);
                    }
                    if (index.bigIntegerValue().compareTo(previous) <= 0) { // FR-FEATURES-ORDER
                        throw fieldType("field '" + name + "': bit index " + index + " after " + previous
                                + " is not strictly ascending (FR-FEATURES-ORDER)");
                    }
                    previous = index.bigIntegerValue();
                }
                out.values.add(Codec.typed("bin").put("hex", Hex.of(IgniteExt.bitmask(value))));
                return;
            }
            case "extensions":
                arrayOf(name, value, "[key, typed value] pairs");
                for (JsonNode pair : value) {
                    if (!pair.isArray() || pair.size() != 2 || !pair.get(0).isTextual() || !pair.get(1).isObject()) {
                        throw fieldType("field '" + name + "' has an entry that is not a [key, typed value] pair: "
                                + pair);
                    }
                }
                out.count(value.size());
                for (JsonNode pair : value) {
                    out.values.add(Codec.typed("str").put("value", pair.get(0).textValue()));
                    out.values.add(pair.get(1));
                }
                return;
            case "uuid-list":
                arrayOf(name, value, "typed uuids");
                out.count(value.size());
                for (int i = 0; i < value.size(); i++) {
                    out.typed(name + "[" + i + "]", "uuid", value.get(i));
                }
                return;
            case "error":
                if (!value.isObject() || value.has("type")) {
                    throw fieldType("field '" + name + "' is " + describe(value) + ", not an error object");
                }
                writeLayout(out, errorObject, value, Set.of(), name + ".");
                return;
            case "payload":
                arrayOf(name, value, "typed values");
                for (JsonNode item : value) {
                    if (!item.isObject()) {
                        throw fieldType("field '" + name + "' has an item that is not a typed value: " + item);
                    }
                }
                out.values.addAll((ArrayNode) value);
                return;
            default: // int long bool str bin uuid bitmask: one typed value
                out.typed(name, field.type, value);
        }
    }

    // ---------------------------------------------------------------- typed values

    /** FR-INT-RANGE: an int field is what Java reads with unpackInt, a long field with unpackLong; both are typed
     * ints, and a count is any typed int (bounded by the values present). */
    private static String wireType(String type) {
        return type.equals("long") || type.equals("count") ? "int" : type;
    }

    /** Whether a typed value of field type {@code type} is an int outside that type's range (32 or 64 bits). */
    private static boolean outOfRange(JsonNode value, String type) {
        int bits = type.equals("int") ? 31 : type.equals("long") ? 63 : Integer.MAX_VALUE;
        return bits != Integer.MAX_VALUE && intOf(value).bitLength() > bits;
    }

    private static BigInteger intOf(JsonNode typedInt) {
        return new BigInteger(Fields.text(typedInt, "value"));
    }

    private static boolean isTyped(JsonNode value, String type) {
        return value.isObject() && type.equals(value.path("type").textValue());
    }

    private static void arrayOf(String field, JsonNode value, String what) throws WireError {
        if (!value.isArray()) {
            throw fieldType("field '" + field + "' is " + describe(value) + ", not an array of " + what);
        }
    }

    private static String describe(JsonNode value) {
        return value.isObject() && value.has("type") ? "typed " + value.get("type") : "JSON " + value.getNodeType();
    }

    private static WireError fieldType(String message) {
        return new WireError("frame.field-type", message);
    }

    private static WireError fieldsError(String message) {
        return new WireError("frame.fields", message);
    }
}
