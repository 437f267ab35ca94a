import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.io.BufferedOutputStream;
import java.io.File;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runner protocol v1 (schema/protocol.schema.json): one JSON request per stdin line, one response per stdout
 * line. Argument: the path of schema/registry.json (default relative to runners/java/).
 */
public final class Runner {
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    private Runner() {
    }

    public static void main(String[] args) throws IOException {
        // Debian's jackson-core 2.14.1-2 (CVE-2025-52999 backport) caps JSON nesting at 1000 and strings at 20M
        // chars, and its parsers take only the global defaults. A 512-deep value is ~1030 JSON levels and a big bin
        // is a long hex string; requests come from the harness, so the caps are raised (Trees builds trees
        // without recursion, and 10,000-deep values still encode with -Xss16m).
        StreamReadConstraints.overrideDefaultStreamReadConstraints(StreamReadConstraints.builder()
                .maxNestingDepth(20_100).maxStringLength(Integer.MAX_VALUE).build());
        File registryFile = new File(args.length > 0 ? args[0] : "../../schema/registry.json");
        JsonNode registry = Trees.read(Trees.FACTORY.createParser(registryFile));
        IgniteExt ignite = new IgniteExt(registry);
        Codec codec = new Codec(ignite);
        BinaryTuple tuples = new BinaryTuple(codec);
        Frames frames = new Frames(codec, registry);
        StdinLines in = new StdinLines(new FileInputStream(FileDescriptor.in));
        // One generator for every answer, writing chars through a UTF-8 writer (Jackson's byte generator would
        // escape characters beyond the BMP as surrogate pairs); no String of each answer is built and copied.
        JsonGenerator out = Trees.FACTORY.createGenerator(new OutputStreamWriter(
                new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 16), StandardCharsets.UTF_8));
        out.setRootValueSeparator(null); // answers are separated by the '\n' written after each
        JsonText answer = new JsonText();
        // The loop's body is a method of its own: the JIT compiles a method after a few hundred calls, while this
        // frame, entered once, would stay interpreted (a loop is compiled in place only after 60,000 rounds).
        while (in.next() && respond(in, out, answer, codec, tuples, frames, ignite)) {
        }
        out.flush();
    }

    /** Answers the line in.next() has moved to, if it is not blank; false if it is 'stop'. */
    private static boolean respond(StdinLines in, JsonGenerator out, JsonText answer, Codec codec, BinaryTuple tuples,
            Frames frames, IgniteExt ignite) throws IOException {
        byte[] line = in.buffer();
        int start = in.lineStart();
        int length = in.lineLength();
        if (isBlank(line, start, length)) {
            return true;
        }
        JsonNode request;
        try {
            request = Trees.readRequest(Trees.FACTORY.createParser(line, start, length));
        } catch (JsonProcessingException e) {
            System.err.println("unreadable request: " + e);
            Trees.write(out, unreadable(new String(line, start, length, StandardCharsets.UTF_8), e));
            endAnswer(out, in);
            return true;
        }
        String cmd = request.path("cmd").asText();
        if (cmd.equals("stop")) {
            return false;
        }
        if (cmd.equals("start")) {
            Trees.write(out, start(ignite));
        } else {
            serve(out, answer, codec, tuples, frames, ignite, request);
        }
        endAnswer(out, in);
        return true;
    }

    /** Ends an answer line; flushed only when the next request is not already buffered (a read could block). */
    private static void endAnswer(JsonGenerator out, StdinLines in) throws IOException {
        out.writeRaw('\n');
        if (!in.lineBuffered()) {
            out.flush();
        }
    }

    /** Only ASCII whitespace: checked on the bytes, without decoding the line (which may be megabytes). */
    private static boolean isBlank(byte[] line, int start, int length) {
        for (int i = start; i < start + length; i++) {
            if (line[i] < 0 || !Character.isWhitespace(line[i])) {
                return false;
            }
        }
        return true;
    }

    /** The answer to a line Jackson cannot read: 'skipped', with the id found by a plain text match. */
    private static ObjectNode unreadable(String line, JsonProcessingException e) {
        // The pattern is compiled here, not when the class is: Pattern's character classes are lambdas, and the
        // first of them in a run spins classes (about 8 ms of CPU), for a line no corpus run sends.
        Matcher id = Pattern.compile("\"id\"\\s*:\\s*(\\d+)").matcher(line);
        return JSON.objectNode().put("id", id.find() ? Long.parseLong(id.group(1)) : 0)
                .put("skipped", "runner cannot read the request: " + e.getOriginalMessage());
    }

    private static ObjectNode start(IgniteExt ignite) {
        ObjectNode response = JSON.objectNode().put("protocol", 1).put("name", "java")
                .put("language", "Java " + System.getProperty("java.version"))
                .put("library", "msgpack-java (org.msgpack:msgpack-core)")
                .put("library_version", LibraryVersion.VALUE);
        response.putArray("corpus_majors").add(1);
        ObjectNode capabilities = response.putObject("capabilities");
        capabilities.putArray("ops").add("encode").add("decode");
        ArrayNode eras = capabilities.putArray("eras");
        for (String era : ignite.supportedEras()) {
            eras.add(era);
        }
        ArrayNode formats = capabilities.putArray("formats").add("msgpack").add("frame");
        for (String format : BinaryTuple.FORMATS) {
            formats.add(format);
        }
        return response;
    }

    /**
     * Writes the answer to an encode or decode request: a result, an error class, or 'skipped' when the runner
     * itself failed. The result is complete (in {@code answer}, or a node) before anything of it is written.
     */
    private static void serve(JsonGenerator out, JsonText answer, Codec codec, BinaryTuple tuples, Frames frames,
            IgniteExt ignite, JsonNode request) throws IOException {
        long id = request.path("id").asLong();
        String field = "skipped"; // the result's field name, its value in answer or node
        JsonNode node = null;
        try {
            String era = Fields.text(request, "era");
            String format = ignite.isEra(era) && request.has("format") ? Fields.text(request, "format") : "msgpack";
            String cmd = request.path("cmd").asText();
            List<String> columns = BinaryTuple.FORMATS.contains(format) ? columns(request) : null;
            if (!ignite.isEra(era)) {
                node = TextNode.valueOf("unknown era '" + era + "'");
            } else if (format.equals("frame")) { // client frames (spec.md 11), era 3.0 only
                String kind = Fields.text(request, "frame");
                if (!era.equals(Frames.ERA)) {
                    node = TextNode.valueOf("frames exist in era " + Frames.ERA + " only, not '" + era + "'");
                } else if (cmd.equals("encode")) {
                    field = "hex";
                    answer.reset().hexString(frames.encode(kind, request.path("fields"), features(request)));
                } else if (cmd.equals("decode")) {
                    field = "fields";
                    node = frames.decode(kind, Fields.hex(request, "hex"), features(request));
                } else {
                    node = TextNode.valueOf("unknown cmd " + request.path("cmd"));
                }
            } else if (!format.equals("msgpack")) { // Binary Tuple formats (spec 6.2)
                if (columns == null) {
                    node = TextNode.valueOf("format '" + format + "' not implemented");
                } else if (cmd.equals("encode")) {
                    field = "hex";
                    answer.reset().hexString(tuples.encode(format, Fields.array(request, "values"), era));
                } else if (cmd.equals("decode")) {
                    field = "values";
                    node = tuples.decode(format, Fields.hex(request, "hex"), era, columns);
                } else {
                    node = TextNode.valueOf("unknown cmd " + request.path("cmd"));
                }
            } else if (cmd.equals("encode")) {
                field = "hex";
                answer.reset().hexString(codec.encode(Fields.array(request, "values")));
            } else if (cmd.equals("decode")) {
                field = "values";
                codec.decodeText(Fields.hex(request, "hex"), era, answer.reset());
            } else {
                node = TextNode.valueOf("unknown cmd " + request.path("cmd"));
            }
        } catch (WireError e) {
            field = "error";
            node = JSON.objectNode().put("class", e.errorClass).put("message", e.getMessage());
        } catch (Exception | StackOverflowError | OutOfMemoryError e) {
            // Not a verdict on the input: a bad request or a runner/library failure. The harness decides.
            System.err.println("request " + id + ": " + e);
            StackTraceElement[] trace = e.getStackTrace();
            for (int i = 0; i < Math.min(8, trace.length); i++) { // a StackOverflowError has thousands
                System.err.println("\tat " + trace[i]);
            }
            field = "skipped";
            node = TextNode.valueOf("runner failure: " + e);
        }
        out.writeStartObject();
        out.writeNumberField("id", id);
        out.writeFieldName(field);
        if (node != null) {
            Trees.write(out, node);
        } else {
            answer.writeTo(out);
        }
        out.writeEndObject();
    }

    /** The feature names a frame request says the connection negotiated (none if it names none). */
    private static Set<String> features(JsonNode request) {
        return new HashSet<>(Fields.texts(request, "features"));
    }

    /** The element types a Binary Tuple request names ("columns"), if any. */
    private static List<String> columns(JsonNode request) {
        return Fields.texts(request, "columns");
    }
}
