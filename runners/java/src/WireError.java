/** A rejection with an error class from schema/registry.json (error_classes); becomes an error response. */
final class WireError extends Exception {
    private static final long serialVersionUID = 1L;

    final String errorClass;

    WireError(String errorClass, String message) {
        super(message);
        this.errorClass = errorClass;
    }

    static WireError truncated(String message) {
        return new WireError("malformed.truncated", message);
    }

    static WireError unrepresentable(String message) {
        return new WireError("unrepresentable", message);
    }

    static WireError extLength(String message) {
        return new WireError("invalid.ext-length", message);
    }

    static WireError extValue(String message) {
        return new WireError("invalid.ext-value", message);
    }
}
