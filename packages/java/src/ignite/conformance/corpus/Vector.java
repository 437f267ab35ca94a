package ignite.conformance.corpus;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** One vector; {@link #raw()} is its JSON object as it stands in its corpus file (schema/corpus.schema.json). */
public final class Vector {
    private static final HexFormat HEX = HexFormat.of();
    private final JsonNode raw;
    private final String family;

    Vector(JsonNode raw, String family) {
        this.raw = raw;
        this.family = family;
    }

    public JsonNode raw() {
        return raw;
    }

    /** The family of the vector's corpus file. */
    public String family() {
        return family;
    }

    public String id() {
        return raw.get("id").asText();
    }

    /** "value", "decode-reject" or "encode-reject". */
    public String kind() {
        return raw.get("kind").asText();
    }

    public String era() {
        return raw.get("era").asText();
    }

    /** "msgpack" when the file gives none. */
    public String format() {
        return raw.path("format").asText("msgpack");
    }

    public List<String> rules() {
        List<String> out = new ArrayList<>();
        raw.get("rules").forEach(r -> out.add(r.asText()));
        return Collections.unmodifiableList(out);
    }

    /** "must", "should" or "impl". */
    public String level() {
        return raw.get("level").asText();
    }

    public String description() {
        return raw.get("description").asText();
    }

    /** The value notation (schema/value.schema.json) as a JSON array; null for a decode-reject. */
    public JsonNode values() {
        return raw.get("values");
    }

    /** A frame vector's message kind (format "frame", spec.md 11); null for the other formats. */
    public String frame() {
        return raw.has("frame") ? raw.get("frame").asText() : null;
    }

    /** A frame vector's named fields, in place of values (value.schema.json#/$defs/frame_fields); else null. */
    public JsonNode fields() {
        return raw.get("fields");
    }

    /** The feature names a frame vector's connection negotiated, as a JSON array; null when none. */
    public JsonNode features() {
        return raw.get("features");
    }

    /** The must-reject error class; null for a value vector. */
    public String error() {
        return raw.has("error") ? raw.get("error").asText() : null;
    }

    /** A value vector's canonical bytes; null for the other kinds. */
    public byte[] canonical() {
        return "value".equals(kind()) ? HEX.parseHex(raw.get("canonical").asText()) : null;
    }

    /** The bytes a decoder reads: a value's canonical bytes, a decode-reject's bytes; null for an encode-reject. */
    public byte[] bytes() {
        switch (kind()) {
            case "value":
                return canonical();
            case "decode-reject":
                return HEX.parseHex(raw.get("hex").asText());
            default:
                return null;
        }
    }

    /** label -> bytes: other encodings of a value vector's values (empty for the other kinds), in file order. */
    public Map<String, byte[]> variants() {
        Map<String, byte[]> out = new LinkedHashMap<>();
        raw.path("variants").forEach(v -> out.put(v.get("label").asText(), HEX.parseHex(v.get("hex").asText())));
        return Collections.unmodifiableMap(out);
    }

    /** The operation names the harness runs and a skip file's OP-GLOB matches. */
    public List<String> ops() {
        List<String> out = new ArrayList<>();
        switch (kind()) {
            case "value":
                out.add("encode");
                out.add("decode");
                variants().keySet().forEach(label -> out.add("decode[" + label + "]"));
                break;
            case "decode-reject":
                out.add("reject");
                break;
            default:
                out.add("reject-encode");
        }
        return Collections.unmodifiableList(out);
    }

    @Override
    public String toString() {
        return "Vector(" + id() + ", " + kind() + ")";
    }
}
