// A rejection the runner reports to the harness as {"error": {"class", "message"}}.
// `errorClass` is one of registry.json's error_classes.
export class WireError extends Error {
  /** @param {string} errorClass @param {string} message */
  constructor(errorClass, message) {
    super(message);
    this.name = "WireError";
    this.errorClass = errorClass;
  }
}
