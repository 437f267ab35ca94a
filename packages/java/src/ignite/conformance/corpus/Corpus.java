package ignite.conformance.corpus;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The Ignite 3 thin-client wire-value golden vectors, for an implementer's own unit tests.
 *
 * <pre>{@code
 * Corpus corpus = Corpus.load();      // the corpus in this jar (or Corpus.load(Path.of("path/to/vectors")))
 * corpus.vectors(Filter.any().family("bt-decimal").kind("value")).forEach(v -> ... v.canonical(), v.values() ...);
 * }</pre>
 *
 * A corpus is verified against its manifest.json when loaded: every listed file with its size and SHA-256, and
 * no file missing or extra. Its files are parsed on first use. The corpus files' structure is
 * schema/corpus.schema.json of the conformance suite; the skip-file format ({@link SkipList}) is docs/skip-file.md.
 */
public final class Corpus implements Iterable<Vector> {
    static final String MANIFEST = "manifest.json";
    /** Where the corpus lives inside the jar. */
    public static final String EMBEDDED = "ignite/conformance/corpus/vectors";
    private static final ObjectMapper JSON = new ObjectMapper();

    /** A corpus's files by name: a directory (also inside this jar), or class loader resources. */
    private interface Source {
        byte[] read(String name) throws IOException;

        /** Every *.json but the manifest; null when they cannot be listed (resources outside a jar or directory). */
        Set<String> names() throws IOException;

        String where();
    }

    private final Source files;
    private final String manifestSha256;
    private final JsonNode manifest;
    private final Map<String, Integer> counts = new LinkedHashMap<>();
    private List<Vector> all;
    private Map<String, Vector> byId;

    private Corpus(Source files) {
        this.files = files;
        try {
            byte[] manifestBytes = files.read(MANIFEST);
            this.manifestSha256 = sha256(manifestBytes);
            this.manifest = JSON.readTree(manifestBytes);
            manifest.get("files").forEach(f -> counts.put(f.get("path").asText(), f.get("vectors").asInt()));
            verify();
        } catch (IOException e) {
            throw new CorpusIntegrityException(files.where() + ": cannot read " + e.getMessage());
        }
    }

    /** The corpus embedded in this jar, verified on first use (one instance per class loader). */
    public static Corpus load() {
        return Embedded.CORPUS;
    }

    /** The corpus in this directory (a newer corpus, a copy under test), verified against its manifest. */
    public static Corpus load(Path directory) {
        return new Corpus(directoryFiles(directory));
    }

    private static final class Embedded {
        static final Corpus CORPUS = new Corpus(embeddedFiles());
    }

    private static Source embeddedFiles() {
        CodeSource source = Corpus.class.getProtectionDomain().getCodeSource();
        try {
            Path location = source == null ? null : Path.of(source.getLocation().toURI());
            if (location != null && Files.isDirectory(location)) {
                return directoryFiles(location.resolve(EMBEDDED));
            }
            if (location != null && Files.isRegularFile(location)) {
                return directoryFiles(FileSystems.newFileSystem(location, (ClassLoader) null).getPath("/" + EMBEDDED));
            }
        } catch (IOException | URISyntaxException | IllegalArgumentException e) {
            // not a file: URL (a nested or custom class loader): read the resources by name below
        }
        return new Source() {
            @Override
            public byte[] read(String name) throws IOException {
                try (InputStream in = Corpus.class.getClassLoader().getResourceAsStream(EMBEDDED + "/" + name)) {
                    if (in == null) {
                        throw new IOException(name + ": no such resource");
                    }
                    return in.readAllBytes();
                }
            }

            @Override
            public Set<String> names() {
                return null;
            }

            @Override
            public String where() {
                return "classpath:" + EMBEDDED;
            }
        };
    }

    private static Source directoryFiles(Path directory) {
        return new Source() {
            @Override
            public byte[] read(String name) throws IOException {
                return Files.readAllBytes(directory.resolve(name));
            }

            @Override
            public Set<String> names() throws IOException {
                try (Stream<Path> list = Files.list(directory)) {
                    return list.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".json") && !n.equals(MANIFEST))
                        .collect(Collectors.toCollection(TreeSet::new));
                }
            }

            @Override
            public String where() {
                return directory.toString();
            }
        };
    }

    private void verify() throws IOException {
        Map<String, JsonNode> listed = new LinkedHashMap<>();
        manifest.get("files").forEach(f -> listed.put(f.get("path").asText(), f));
        Set<String> present = files.names();
        List<String> problems = new ArrayList<>();
        if (present != null) {
            new TreeSet<>(listed.keySet()).stream().filter(n -> !present.contains(n))
                .forEach(n -> problems.add(n + ": missing (listed in " + MANIFEST + ")"));
            present.stream().filter(n -> !listed.containsKey(n))
                .forEach(n -> problems.add(n + ": extra (not listed in " + MANIFEST + ")"));
        }
        for (String name : new TreeSet<>(listed.keySet())) {
            if (present != null && !present.contains(name)) {
                continue;
            }
            byte[] data = files.read(name);
            String digest = sha256(data);
            JsonNode want = listed.get(name);
            if (data.length != want.get("bytes").asLong() || !digest.equals(want.get("sha256").asText())) {
                problems.add(name + ": sha256 " + digest + " (" + data.length + " bytes), " + MANIFEST + " says "
                    + want.get("sha256").asText() + " (" + want.get("bytes").asLong() + " bytes)");
            }
        }
        if (!problems.isEmpty()) {
            throw new CorpusIntegrityException(files.where() + " is not corpus " + version() + " as its " + MANIFEST
                + " describes it; refusing a tampered or partial copy:\n  " + String.join("\n  ", problems));
        }
    }

    private static String sha256(byte[] data) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    /** The corpus version (the artifact version). */
    public String version() {
        return manifest.get("corpus_version").asText();
    }

    public String specVersion() {
        return manifest.get("spec_version").asText();
    }

    /** SHA-256 (hex) of the manifest.json bytes. */
    public String manifestSha256() {
        return manifestSha256;
    }

    public JsonNode manifest() {
        return manifest;
    }

    /** Corpus file name -> its vector count, from the manifest, in manifest order. */
    public Map<String, Integer> counts() {
        return Collections.unmodifiableMap(counts);
    }

    /** Every vector's count. */
    public int size() {
        return counts.values().stream().mapToInt(Integer::intValue).sum();
    }

    private synchronized List<Vector> all() {
        if (all == null) {
            List<Vector> out = new ArrayList<>(size());
            try {
                for (String name : counts.keySet()) {
                    JsonNode data = JSON.readTree(files.read(name));
                    String family = data.get("family").asText();
                    data.get("vectors").forEach(v -> out.add(new Vector(v, family)));
                }
            } catch (IOException e) {
                throw new UncheckedIOException(files.where() + ": " + e.getMessage(), e);
            }
            all = Collections.unmodifiableList(out);
        }
        return all;
    }

    /** Every vector, in manifest file order. */
    public List<Vector> vectors() {
        return all();
    }

    /** The vectors (in manifest file order) matching the filter. */
    public Stream<Vector> vectors(Filter filter) {
        return all().stream().filter(filter::test);
    }

    /** The vector with this id; NoSuchElementException when the corpus has none. */
    public synchronized Vector vector(String id) {
        if (byId == null) {
            byId = new HashMap<>();
            all().forEach(v -> byId.put(v.id(), v));
        }
        Vector v = byId.get(id);
        if (v == null) {
            throw new NoSuchElementException("corpus " + version() + " has no vector '" + id + "'");
        }
        return v;
    }

    @Override
    public Iterator<Vector> iterator() {
        return all().iterator();
    }
}
