package ignite.conformance.corpus;

/** The corpus directory is not the one its manifest.json describes (changed, missing or extra files). */
public final class CorpusIntegrityException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public CorpusIntegrityException(String message) {
        super(message);
    }
}
