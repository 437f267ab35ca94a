package ignite.conformance.corpus;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** A skip file (docs/skip-file.md): {@code SCOPE  OP-GLOB  reason} lines, the first matching line wins. */
public final class SkipList {
    private static final Pattern LINE = Pattern.compile("^(\\S+)\\s+(\\S+)\\s+(.*)$");
    private static final Pattern SCOPED = Pattern.compile("^(family|era|format):([a-z0-9][a-z0-9._-]*)$");
    private static final Pattern ID_GLOB = Pattern.compile("^[a-z0-9*][a-z0-9._*-]*$");
    private static final Pattern OP = Pattern.compile(
        "^(encode|decode|decode\\[[a-z0-9]+([.-][a-z0-9]+)*\\]|reject|reject-encode)$");
    private static final List<String> SAMPLE_OPS = List.of("encode", "decode", "decode[x]", "reject", "reject-encode");

    /** One line: a scope (an id glob, or family/era/format and a name), an op glob and the reason. */
    public static final class Entry {
        public final int line;
        public final String scopeKind;      // null for an id or id glob
        public final String scopeName;
        public final Pattern id;            // null for a scoped entry
        public final Pattern op;
        public final String reason;

        Entry(int line, String scopeKind, String scopeName, Pattern id, Pattern op, String reason) {
            this.line = line;
            this.scopeKind = scopeKind;
            this.scopeName = scopeName;
            this.id = id;
            this.op = op;
            this.reason = reason;
        }

        boolean matches(Vector v, String opName) {
            if (!op.matcher(opName).matches()) {
                return false;
            }
            if (id != null) {
                return id.matcher(v.id()).matches();
            }
            String actual = "family".equals(scopeKind) ? v.family() : "era".equals(scopeKind) ? v.era() : v.format();
            return scopeName.equals(actual);
        }
    }

    private final List<Entry> entries;

    public SkipList(List<Entry> entries) {
        this.entries = Collections.unmodifiableList(new ArrayList<>(entries));
    }

    public List<Entry> entries() {
        return entries;
    }

    public static SkipList load(Path path) throws IOException {
        return parse(Files.readString(path, StandardCharsets.UTF_8), path.toString());
    }

    /** '*' is the only wildcard; the whole name must match. */
    private static Pattern glob(String pattern) {
        return Pattern.compile(Stream.of(pattern.split("\\*", -1)).map(Pattern::quote).collect(Collectors.joining(".*")));
    }

    public static SkipList parse(String text, String source) {
        List<Entry> out = new ArrayList<>();
        String[] lines = text.split("\r?\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String where = source + ":" + (i + 1) + ": ";
            Matcher m = LINE.matcher(line);
            if (!m.matches()) {
                throw new SkipListException(where + "expected 'SCOPE  OP-GLOB  reason' (the reason is mandatory), got: "
                    + line);
            }
            String scope = m.group(1);
            String opGlob = m.group(2);
            Matcher scoped = SCOPED.matcher(scope);
            boolean isScoped = scoped.matches();
            if (!isScoped && !ID_GLOB.matcher(scope).matches()) {
                throw new SkipListException(where + "'" + scope
                    + "' is not a vector id, id glob, family:NAME, era:ERA or format:FORMAT");
            }
            Pattern op = glob(opGlob);
            if (!OP.matcher(opGlob.replace('*', 'x')).matches() && SAMPLE_OPS.stream().noneMatch(o -> op.matcher(o).matches())) {
                throw new SkipListException(where + "'" + opGlob
                    + "' is not an op or op glob (encode, decode, decode[<label>], reject, reject-encode)");
            }
            out.add(isScoped ? new Entry(i + 1, scoped.group(1), scoped.group(2), null, op, m.group(3))
                : new Entry(i + 1, null, null, glob(scope), op, m.group(3)));
        }
        return new SkipList(out);
    }

    /** The reason of the first line matching the vector and op name, or empty. */
    public Optional<String> reason(Vector vector, String op) {
        return entries.stream().filter(e -> e.matches(vector, op)).map(e -> e.reason).findFirst();
    }
}
