/** A rejection with an error class from schema/registry.json (error_classes); becomes an error response. */
final class WireError extends Exception {
    private static final long serialVersionUID = 1L;

    final String errorClass;

    WireError(String errorClass, String message) {
        // No stack trace (writableStackTrace false): a rejection is an answer, not a runner fault, and filling
        // the trace costs more than the rest of a must-reject request.
        super(message, null, false, false);
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
