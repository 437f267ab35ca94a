package ignite.conformance.corpus;

/** A skip file line that does not follow the format (the message names the source and line). */
public final class SkipListException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public SkipListException(String message) {
        super(message);
    }
}
