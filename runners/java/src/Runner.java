import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedOutputStream;
import java.io.File;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runner protocol v1 (schema/protocol.schema.json): one JSON request per stdin line, one response per stdout
 * line. Argument: the path of schema/registry.json (default relative to runners/java/).
 */
public final class Runner {
    // writeTree would flush the generator (and so stdout) after every answer: respond flushes when it should.
    private static final ObjectMapper JSON = new ObjectMapper().disable(SerializationFeature.FLUSH_AFTER_WRITE_VALUE);
    private static final Pattern REQUEST_ID = Pattern.compile("\"id\"\\s*:\\s*(\\d+)");

    private Runner() {
    }

    public static void main(String[] args) throws IOException {
        // Debian's jackson-core 2.14.1-2 (CVE-2025-52999 backport) caps JSON nesting at 1000 and strings at 20M
        // chars, and its parsers take only the global defaults. A 512-deep value is ~1030 JSON levels and a big bin
        // is a long hex string; requests come from the harness, so the caps are raised (databind builds trees
        // without recursion, and 10,000-deep values still encode with -Xss16m).
        StreamReadConstraints.overrideDefaultStreamReadConstraints(StreamReadConstraints.builder()
                .maxNestingDepth(20_100).maxStringLength(Integer.MAX_VALUE).build());
        File registryFile = new File(args.length > 0 ? args[0] : "../../schema/registry.json");
        IgniteExt ignite = new IgniteExt(JSON.readTree(registryFile));
        Codec codec = new Codec(ignite);
        BinaryTuple tuples = new BinaryTuple(codec);
        StdinLines in = new StdinLines(System.in);
        // One generator for every answer, writing chars through a UTF-8 writer (Jackson's byte generator would
        // escape characters beyond the BMP as surrogate pairs); no String of each answer is built and copied.
        JsonGenerator out = JSON.getFactory().createGenerator(new OutputStreamWriter(
                new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 16), StandardCharsets.UTF_8));
        out.setRootValueSeparator(null); // answers are separated by the '\n' respond writes
        byte[] line;
        while ((line = in.next()) != null) {
            if (isBlank(line)) {
                continue;
            }
            JsonNode request;
            try {
                request = JSON.readTree(line);
            } catch (JsonProcessingException e) {
                System.err.println("unreadable request: " + e);
                respond(out, unreadable(new String(line, StandardCharsets.UTF_8), e), in);
                continue;
            }
            String cmd = request.path("cmd").asText();
            if (cmd.equals("stop")) {
                break;
            }
            respond(out, cmd.equals("start") ? start(ignite) : serve(codec, tuples, ignite, request), in);
        }
        out.flush();
    }

    /** Writes one answer line; flushed only when the next request is not already buffered (a read could block). */
    private static void respond(JsonGenerator out, ObjectNode response, StdinLines in) throws IOException {
        JSON.writeTree(out, response);
        out.writeRaw('\n');
        if (!in.lineBuffered()) {
            out.flush();
        }
    }

    /** Only ASCII whitespace: checked on the bytes, without decoding the line (which may be megabytes). */
    private static boolean isBlank(byte[] line) {
        for (byte b : line) {
            if (b < 0 || !Character.isWhitespace(b)) {
                return false;
            }
        }
        return true;
    }

    /** The answer to a line Jackson cannot read: 'skipped', with the id found by a plain text match. */
    private static ObjectNode unreadable(String line, JsonProcessingException e) {
        Matcher id = REQUEST_ID.matcher(line);
        return JSON.createObjectNode().put("id", id.find() ? Long.parseLong(id.group(1)) : 0)
                .put("skipped", "runner cannot read the request: " + e.getOriginalMessage());
    }

    private static ObjectNode start(IgniteExt ignite) throws IOException {
        ObjectNode response = JSON.createObjectNode().put("protocol", 1).put("name", "java")
                .put("language", "Java " + System.getProperty("java.version"))
                .put("library", "msgpack-java (org.msgpack:msgpack-core)")
                .put("library_version", libraryVersion());
        response.putArray("corpus_majors").add(1);
        ObjectNode capabilities = response.putObject("capabilities");
        capabilities.putArray("ops").add("encode").add("decode");
        ignite.supportedEras().forEach(capabilities.putArray("eras")::add);
        ArrayNode formats = capabilities.putArray("formats").add("msgpack");
        BinaryTuple.FORMATS.forEach(formats::add);
        return response;
    }

    /** Written into the jar by the Makefile from the installed Debian package (the jar's manifest has none). */
    private static String libraryVersion() throws IOException {
        try (InputStream version = Runner.class.getResourceAsStream("/library-version.txt")) {
            return version == null ? "unknown" : new String(version.readAllBytes(), StandardCharsets.UTF_8).trim();
        }
    }

    /** An encode or decode request: a result, an error class, or 'skipped' when the runner itself failed. */
    private static ObjectNode serve(Codec codec, BinaryTuple tuples, IgniteExt ignite, JsonNode request) {
        ObjectNode response = JSON.createObjectNode().put("id", request.path("id").asLong());
        try {
            String era = Fields.text(request, "era");
            if (!ignite.isEra(era)) {
                return response.put("skipped", "unknown era '" + era + "'");
            }
            String format = request.has("format") ? Fields.text(request, "format") : "msgpack";
            if (!format.equals("msgpack")) { // Binary Tuple formats (spec 6.2)
                return tuple(tuples, request, era, format, response);
            }
            switch (request.path("cmd").asText()) {
                case "encode":
                    return response.put("hex", Hex.of(codec.encode(Fields.array(request, "values"))));
                case "decode":
                    return response.putRawValue("values", codec.decodeText(Hex.parse(Fields.text(request, "hex")), era));
                default:
                    return response.put("skipped", "unknown cmd " + request.path("cmd"));
            }
        } catch (WireError e) {
            response.putObject("error").put("class", e.errorClass).put("message", e.getMessage());
            return response;
        } catch (Exception | StackOverflowError | OutOfMemoryError e) {
            // Not a verdict on the input: a bad request or a runner/library failure. The harness decides.
            System.err.println("request " + response.get("id") + ": " + e);
            StackTraceElement[] frames = e.getStackTrace();
            for (int i = 0; i < Math.min(8, frames.length); i++) { // a StackOverflowError has thousands
                System.err.println("\tat " + frames[i]);
            }
            return response.put("skipped", "runner failure: " + e);
        }
    }

    /** An encode or decode request of a Binary Tuple format; "columns" name the element types where needed. */
    private static ObjectNode tuple(BinaryTuple tuples, JsonNode request, String era, String format,
            ObjectNode response) throws WireError, IOException {
        if (!BinaryTuple.FORMATS.contains(format)) {
            return response.put("skipped", "format '" + format + "' not implemented");
        }
        List<String> columns = new ArrayList<>();
        if (request.has("columns")) {
            for (JsonNode column : Fields.array(request, "columns")) {
                columns.add(column.textValue());
            }
        }
        switch (request.path("cmd").asText()) {
            case "encode":
                return response.put("hex", Hex.of(tuples.encode(format, Fields.array(request, "values"), era)));
            case "decode":
                return response.set("values", tuples.decode(format, Hex.parse(Fields.text(request, "hex")), era, columns));
            default:
                return response.put("skipped", "unknown cmd " + request.path("cmd"));
        }
    }
}
