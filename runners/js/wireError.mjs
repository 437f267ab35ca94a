// A rejection the runner reports to the harness as {"error": {"class", "message"}}.
// `errorClass` is one of registry.json's error_classes.
export class WireError extends Error {
  /** @param {string} errorClass @param {string} message */
  constructor(errorClass, message) {
    // No stack trace: a rejection is an answer, not a runner fault, and capturing the stack was the runner's
    // largest single cost on the must-reject vectors (most of the corpus).
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
    this.name = "WireError";
    this.errorClass = errorClass;
  }
}
