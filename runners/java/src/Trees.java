import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.BaseJsonNode;
import com.fasterxml.jackson.databind.node.ContainerNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.ArrayDeque;

/**
 * JSON text <-> databind's JsonNode trees with jackson-core's parser and generator, without an ObjectMapper:
 * its class initialisation alone (default settings with a SimpleDateFormat, which loads locale data) costs about
 * 30 ms of CPU per start, and its readTree a deserialization context per request. The nodes are the ones
 * ObjectMapper.readTree builds (same number node types, a repeated key's last value) and are written as its
 * writeTree writes them.
 */
final class Trees {
    static final JsonFactory FACTORY = new JsonFactory();
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private Trees() {
    }

    /**
     * The first value of the parser's input (MissingNode if there is none), as ObjectMapper.readTree reads it:
     * what follows it is not read. Containers are tracked on a stack, not by recursion (requests nest deeply).
     */
    static JsonNode read(JsonParser parser) throws IOException {
        return read(parser, false);
    }

    /**
     * A request, as read() reads it, except that a top-level "hex" string of hex digits becomes its bytes (a
     * BinaryNode, see Fields.hex), decoded from the parser's chars: no String of a hex that can be megabytes long
     * is made and then read again. Any other "hex" string stays text.
     */
    static JsonNode readRequest(JsonParser parser) throws IOException {
        return read(parser, true);
    }

    private static JsonNode read(JsonParser parser, boolean hexBytes) throws IOException {
        try (JsonParser p = parser) {
            JsonToken token = p.nextToken();
            if (token == null) {
                return MissingNode.getInstance();
            }
            ArrayDeque<ContainerNode<?>> open = new ArrayDeque<>();
            JsonNode root = null;
            do {
                JsonNode value;
                switch (token) {
                    case FIELD_NAME:
                        continue;
                    case END_OBJECT:
                    case END_ARRAY:
                        open.pop();
                        continue;
                    case START_OBJECT:
                        value = NODES.objectNode();
                        break;
                    case START_ARRAY:
                        value = NODES.arrayNode();
                        break;
                    case VALUE_STRING:
                        // Not getText(): a long string (a big hex) is in several segments, which getText joins
                        // through a StringBuilder char by char; as one array they are joined by array copies.
                        char[] chars = p.getTextCharacters();
                        byte[] bytes = hexBytes && open.size() == 1 && "hex".equals(p.getCurrentName())
                                ? Hex.parseOrNull(chars, p.getTextOffset(), p.getTextLength()) : null;
                        value = bytes != null ? NODES.binaryNode(bytes)
                                : NODES.textNode(new String(chars, p.getTextOffset(), p.getTextLength()));
                        break;
                    case VALUE_NUMBER_INT:
                        switch (p.getNumberType()) {
                            case INT:
                                value = NODES.numberNode(p.getIntValue());
                                break;
                            case LONG:
                                value = NODES.numberNode(p.getLongValue());
                                break;
                            default:
                                value = NODES.numberNode(p.getBigIntegerValue());
                        }
                        break;
                    case VALUE_NUMBER_FLOAT:
                        value = p.getNumberType() == JsonParser.NumberType.BIG_DECIMAL
                                ? NODES.numberNode(p.getDecimalValue()) : NODES.numberNode(p.getDoubleValue());
                        break;
                    case VALUE_TRUE:
                    case VALUE_FALSE:
                        value = NODES.booleanNode(token == JsonToken.VALUE_TRUE);
                        break;
                    case VALUE_NULL:
                        value = NODES.nullNode();
                        break;
                    default:
                        throw new IllegalStateException("token " + token);
                }
                ContainerNode<?> parent = open.peek();
                if (parent == null) {
                    root = value;
                } else if (parent instanceof ObjectNode) { // a type test, not a call through the node's vtable
                    ((ObjectNode) parent).replace(p.getCurrentName(), value);
                } else {
                    ((ArrayNode) parent).add(value);
                }
                if (value instanceof ContainerNode) {
                    open.push((ContainerNode<?>) value);
                }
            } while (!open.isEmpty() && (token = p.nextToken()) != null);
            return root;
        }
    }

    /** The tree as ObjectMapper.writeTree writes it with default settings (empty arrays and nulls kept). */
    static void write(JsonGenerator out, JsonNode tree) throws IOException {
        ((BaseJsonNode) tree).serialize(out, null);
    }
}
