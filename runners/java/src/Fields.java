import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.BinaryNode;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;

/** Typed access to request fields; a missing or mistyped field is a bad request (IllegalArgumentException). */
final class Fields {
    private Fields() {
    }

    private static JsonNode field(JsonNode object, String name) {
        JsonNode node = object.get(name);
        if (node == null) {
            throw new IllegalArgumentException("missing field '" + name + "'");
        }
        return node;
    }

    /** A hex string's bytes: decoded already if Trees.readRequest could (a BinaryNode), else parsed here. */
    static byte[] hex(JsonNode object, String name) {
        JsonNode node = field(object, name);
        return node.isBinary() ? ((BinaryNode) node).binaryValue() : Hex.parse(text(object, name));
    }

    static String text(JsonNode object, String name) {
        JsonNode node = field(object, name);
        if (!node.isTextual()) {
            throw new IllegalArgumentException("field '" + name + "' is not a string");
        }
        return node.textValue();
    }

    /** A JSON integer of any size (range checks belong to the caller). */
    static BigInteger integer(JsonNode object, String name) {
        JsonNode node = field(object, name);
        if (!node.isIntegralNumber()) {
            throw new IllegalArgumentException("field '" + name + "' is not an integer");
        }
        return node.bigIntegerValue();
    }

    static boolean bool(JsonNode object, String name) {
        JsonNode node = field(object, name);
        if (!node.isBoolean()) {
            throw new IllegalArgumentException("field '" + name + "' is not a boolean");
        }
        return node.booleanValue();
    }

    static JsonNode array(JsonNode object, String name) {
        JsonNode node = field(object, name);
        if (!node.isArray()) {
            throw new IllegalArgumentException("field '" + name + "' is not an array");
        }
        return node;
    }

    /** An optional array of strings (empty if the field is absent). */
    static List<String> texts(JsonNode object, String name) {
        List<String> texts = new ArrayList<>();
        if (object.has(name)) {
            for (JsonNode text : array(object, name)) {
                texts.add(text.textValue());
            }
        }
        return texts;
    }
}
