package ignite.conformance.corpus;

/**
 * Which vectors {@link Corpus#vectors(Filter)} returns: every criterion set must hold (none set: every vector).
 * Immutable: {@code Filter.any().family("bt-decimal").kind("value")}.
 */
public final class Filter {
    private final String family;
    private final String era;
    private final String format;
    private final String kind;
    private final String rule;

    private Filter(String family, String era, String format, String kind, String rule) {
        this.family = family;
        this.era = era;
        this.format = format;
        this.kind = kind;
        this.rule = rule;
    }

    public static Filter any() {
        return new Filter(null, null, null, null, null);
    }

    public Filter family(String value) {
        return new Filter(value, era, format, kind, rule);
    }

    public Filter era(String value) {
        return new Filter(family, value, format, kind, rule);
    }

    /** "msgpack" matches the vectors whose file gives no format. */
    public Filter format(String value) {
        return new Filter(family, era, value, kind, rule);
    }

    /** "value", "decode-reject" or "encode-reject". */
    public Filter kind(String value) {
        return new Filter(family, era, format, value, rule);
    }

    /** One of the vector's rules. */
    public Filter rule(String value) {
        return new Filter(family, era, format, kind, value);
    }

    boolean test(Vector v) {
        return (family == null || family.equals(v.family())) && (era == null || era.equals(v.era()))
            && (format == null || format.equals(v.format())) && (kind == null || kind.equals(v.kind()))
            && (rule == null || v.rules().contains(rule));
    }
}
