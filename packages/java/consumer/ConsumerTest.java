import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import ignite.conformance.corpus.Corpus;
import ignite.conformance.corpus.CorpusIntegrityException;
import ignite.conformance.corpus.Filter;
import ignite.conformance.corpus.SkipList;
import ignite.conformance.corpus.SkipListException;
import ignite.conformance.corpus.Vector;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A consumer's unit test of the ignite-wire-corpus jar on its classpath (tests/test_packages_java.py runs it; plain
 * Java, no test framework). IWC_EXPECTED names the JSON of what to find (tests/package_fixtures/packages_helper.py).
 * Prints "ok NAME" per check; exits 1 at the first failure.
 */
public final class ConsumerTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HexFormat HEX = HexFormat.of();
    private static JsonNode expected;
    private static Corpus corpus;

    interface Check {
        void run() throws Exception;
    }

    static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError(what);
        }
    }

    static void test(String name, Check c) throws Exception {
        c.run();
        System.out.println("ok " + name);
    }

    static Map<String, Integer> ints(JsonNode node) {
        Map<String, Integer> out = new TreeMap<>();
        node.fields().forEachRemaining(e -> out.put(e.getKey(), e.getValue().asInt()));
        return out;
    }

    public static void main(String[] args) throws Exception {
        expected = JSON.readTree(Path.of(System.getenv("IWC_EXPECTED")).toFile());
        corpus = Corpus.load();

        test("the jar carries the release", () -> {
            String jar = Corpus.class.getProtectionDomain().getCodeSource().getLocation().getPath();
            check(jar.endsWith("ignite-wire-corpus-" + expected.get("version").asText() + ".jar"), "loaded from " + jar);
            check(corpus.version().equals(expected.get("version").asText()), "version " + corpus.version());
            check(corpus.specVersion().equals(expected.get("spec_version").asText()), "spec " + corpus.specVersion());
            check(corpus.manifestSha256().equals(expected.get("manifest_sha256").asText()), "manifest sha256");
            check(new TreeMap<>(corpus.counts()).equals(ints(expected.get("files"))), "counts " + corpus.counts());
        });

        test("counts per kind and per file", () -> {
            Map<String, Integer> kinds = new TreeMap<>();
            for (Vector v : corpus) {
                kinds.merge(v.kind(), 1, Integer::sum);
            }
            check(kinds.equals(ints(expected.get("kinds"))), "kinds " + kinds);
            Map<String, Integer> families = new TreeMap<>();
            expected.get("families").fieldNames().forEachRemaining(
                f -> families.put(f, (int) corpus.vectors(Filter.any().family(f)).count()));
            check(families.equals(ints(expected.get("families"))), "families " + families);
            check(corpus.size() == expected.get("total").asInt() && corpus.vectors().size() == corpus.size(), "total");
        });

        test("filters combine", () -> {
            JsonNode q = expected.get("filter");
            Filter f = Filter.any().family(q.get("family").asText()).era(q.get("era").asText())
                .format(q.get("format").asText()).kind(q.get("kind").asText()).rule(q.get("rule").asText());
            List<Vector> picked = new ArrayList<>();
            corpus.vectors(f).forEach(picked::add);
            check(picked.size() == q.get("count").asInt() && !picked.isEmpty(), "filtered " + picked.size());
            for (Vector v : picked) {
                check(v.family().equals(q.get("family").asText()) && v.era().equals(q.get("era").asText())
                    && v.format().equals(q.get("format").asText()) && v.kind().equals(q.get("kind").asText())
                    && v.rules().contains(q.get("rule").asText()), "filtered " + v);
            }
            corpus.vectors(Filter.any().kind("decode-reject")).forEach(v -> check(v.error() != null && v.canonical() == null, v + " error"));
            corpus.vectors(Filter.any().kind("encode-reject")).forEach(v -> check((v.values() != null ? v.values().size() > 0 : v.fields() != null) && v.bytes() == null, v + " values"));
        });

        test("a frame vector has its kind and fields", () -> {
            JsonNode f = expected.get("frame");
            Vector v = corpus.vector(f.get("id").asText());
            List<String> names = new ArrayList<>();
            v.fields().fieldNames().forEachRemaining(names::add);
            Collections.sort(names);
            List<String> wanted = new ArrayList<>();
            f.get("fields").forEach(n -> wanted.add(n.asText()));
            check(v.format().equals("frame") && v.frame().equals(f.get("frame").asText()) && v.values() == null
                && names.equals(wanted) && HEX.formatHex(v.canonical()).equals(f.get("hex").asText()), v + " frame");
        });

        test("ten vectors decode", () -> {
            check(expected.get("samples").size() == 10, "ten samples");
            for (JsonNode s : expected.get("samples")) {
                Vector v = corpus.vector(s.get("id").asText());
                check(v.kind().equals(s.get("kind").asText()), v + " kind");
                check(HEX.formatHex(v.bytes()).equals(s.get("hex").asText()), v + " bytes");
                Map<String, String> variants = new LinkedHashMap<>();
                v.variants().forEach((label, bytes) -> variants.put(label, HEX.formatHex(bytes)));
                Map<String, String> want = new LinkedHashMap<>();
                s.get("variants").fields().forEachRemaining(e -> want.put(e.getKey(), e.getValue().asText()));
                check(variants.equals(want), v + " variants " + variants);
            }
        });

        test("the skip list reads as the harness does", () -> {
            SkipList skips = SkipList.load(Path.of(expected.get("skips").asText()));
            for (JsonNode c : expected.get("skip_cases")) {
                String want = c.get("reason").isNull() ? null : c.get("reason").asText();
                String got = skips.reason(corpus.vector(c.get("id").asText()), c.get("op").asText()).orElse(null);
                check(want == null ? got == null : want.equals(got), c + ": got " + got);
            }
        });

        test("the skip list refuses the lines the harness refuses, naming the line", () -> {
            for (JsonNode line : expected.get("skip_lines")) {
                String refused = null;
                try {
                    SkipList.parse("# a comment\n" + line.get("text").asText() + "\n", "mine.txt");
                } catch (SkipListException e) {
                    refused = e.getMessage();
                }
                check((refused == null) == line.get("valid").asBoolean(), line + ": " + refused);
                check(refused == null || refused.startsWith("mine.txt:2: "), refused);
            }
        });

        test("a tampered copy is refused", () -> {
            JsonNode t = expected.get("tampered");
            Path dir = Path.of(t.get("dir").asText());
            try {
                Corpus.load(dir);
                check(false, "no CorpusIntegrityException");
            } catch (CorpusIntegrityException e) {
                check(e.getMessage().contains(t.get("file").asText() + ": sha256 " + t.get("actual").asText())
                    && e.getMessage().contains(t.get("expected").asText()), e.getMessage());
            }
            byte[] data = Files.readAllBytes(dir.resolve(t.get("file").asText()));
            check(HEX.formatHex(MessageDigest.getInstance("SHA-256").digest(data)).equals(t.get("actual").asText()), "tampered sha");
        });

        test("a partial copy is refused naming the missing and the extra file", () -> {
            JsonNode p = expected.get("partial");
            try {
                Corpus.load(Path.of(p.get("dir").asText()));
                check(false, "no CorpusIntegrityException");
            } catch (CorpusIntegrityException e) {
                check(e.getMessage().contains(p.get("missing").asText() + ": missing")
                    && e.getMessage().contains(p.get("extra").asText() + ": extra"), e.getMessage());
            }
        });
    }
}
