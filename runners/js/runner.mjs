// Runner protocol v1 (schema/protocol.schema.json): one JSON request per stdin line, one JSON response per
// stdout line, in order. Logs go to stderr only. The codec lives in codec.mjs.
import { createRequire } from "node:module";
import * as binaryTuple from "./binaryTuple.mjs";
import * as frames from "./frames.mjs";
import { decodeOrReject, encodeAll, fromHexReused, toHex } from "./codec.mjs";
import { ERAS } from "./igniteExt.mjs";
import { WireError } from "./wireError.mjs";

// Node's modules and the library are loaded with require, not import (here and in codec.mjs, igniteExt.mjs):
// an import of node:fs built an ES module facade reading every export of fs, whose ReadStream getter loaded
// the whole streams module, and importing the CommonJS library had its source parsed for export names. That
// was about a tenth of the runner's start-up CPU (7 ms of 77, measured for a lone "stop").
const require = createRequire(import.meta.url);
/** @type {typeof import("node:buffer")} */
const { isAscii } = require("node:buffer");
/** @type {typeof import("node:fs")} */
const { readFileSync, readSync, writeSync } = require("node:fs");

const PROTOCOL = 1;
const CORPUS_MAJORS = [1];
const FORMATS = ["msgpack", "binary-tuple", "object", "object-array", "table-row", "collection", "compute-arg", "batched-arguments", "frame"];
const LIBRARY = "@msgpack/msgpack";
const libraryVersion = JSON.parse(
  readFileSync(new URL("./node_modules/@msgpack/msgpack/package.json", import.meta.url), "utf8"),
).version;

/** @param {string} text */
const log = (text) => process.stderr.write(`[js-runner] ${text}\n`);

/**
 * @param {any} request
 * @returns {object | null} the response, or null for "stop"
 */
function handle(request) {
  switch (request.cmd) {
    case "start":
      if (request.protocol !== PROTOCOL) log(`harness speaks protocol ${request.protocol}, runner speaks ${PROTOCOL}`);
      return {
        protocol: PROTOCOL,
        name: "js",
        language: `javascript (node ${process.versions.node})`,
        library: LIBRARY,
        library_version: libraryVersion,
        corpus_majors: CORPUS_MAJORS,
        capabilities: { ops: ["encode", "decode"], eras: ERAS, formats: FORMATS },
      };
    case "encode":
    case "decode":
      return answer(request.id, () => run(request));
    case "stop":
      return null;
    default:
      throw new Error(`unknown cmd '${request.cmd}'`);
  }
}

/**
 * An encode or decode request, routed by "format": msgpack (the default) here, frames (one message as named
 * fields, spec.md 11) in frames.mjs, the Binary Tuple formats (spec 6.2) in binaryTuple.mjs.
 * @param {any} request
 */
function run(request) {
  const { cmd, era, format = "msgpack", columns = [] } = request;
  if (!ERAS.includes(era)) return { skipped: `unknown era '${era}'` };
  if (!FORMATS.includes(format)) return { skipped: `unknown format '${format}'` };
  // An encode answer's bytes stay a Uint8Array here: serve writes them as hex.
  if (format === "msgpack") {
    if (cmd === "encode") return { hex: encodeAll(request.values) };
    const values = decodeOrReject(fromHexReused(request.hex), era);
    return values instanceof WireError ? rejection(values) : { values };
  }
  if (format === "frame") return frame(request);
  return cmd === "encode"
    ? { hex: binaryTuple.encode(format, request.values, era) }
    : { values: binaryTuple.decode(format, fromHexReused(request.hex), era, columns) };
}

/** A frame request: era 3.0 only (the frame layer's UUIDs), `features` the negotiated feature names.
 * @param {any} request */
function frame(request) {
  const { cmd, era, frame: kind, features = [] } = request;
  if (era !== frames.FRAME_ERA) return { skipped: `frames are era ${frames.FRAME_ERA}, not '${era}'` };
  if (!frames.isKind(kind)) return { skipped: `unknown frame kind '${kind}'` };
  return cmd === "encode"
    ? { hex: frames.encode(kind, request.fields, features) }
    : { fields: frames.decode(kind, fromHexReused(request.hex), features) };
}

/**
 * Run one request: a WireError is the input's fault (error response); NotPerformed is a request the runner
 * declines ("skipped"); anything else is the runner's fault, reported as "skipped" (with a stack trace on
 * stderr) so the harness shows it instead of a wrong verdict.
 * @param {number} id @param {() => object} work
 */
function answer(id, work) {
  try {
    return { id, ...work() };
  } catch (e) {
    if (e instanceof WireError) return { id, ...rejection(e) };
    if (e instanceof binaryTuple.NotPerformed) return { id, skipped: e.message };
    const err = /** @type {Error} */ (e);
    log(`request ${id}: ${withStack(work) ?? err}`);
    return { id, skipped: `runner error: ${err.message}` };
  }
}

/** The answer to input that `e` rejects. @param {WireError} e */
const rejection = (e) => ({ error: { class: e.errorClass, message: e.message } });

// Errors capture no stack trace while requests are served: the library's own errors (DecodeError, RangeError)
// are how must-reject input ends, most of the corpus, and capturing their stacks took about a tenth of the
// runner's CPU on the small vectors. A runner fault is rare: its request is run again with stack traces on,
// so the log still shows where it failed (the codec is deterministic).
Error.stackTraceLimit = 0;

/** The stack trace of work's failure when run again with stack traces on (undefined if it does not fail).
 * @param {() => object} work */
function withStack(work) {
  Error.stackTraceLimit = 20;
  try {
    work();
    return undefined;
  } catch (e) {
    return /** @type {Error} */ (e).stack;
  } finally {
    Error.stackTraceLimit = 0;
  }
}

/**
 * Answer one request line into `answers` (nothing for a line without an answer); false for "stop".
 * @param {string} line @param {Answers} answers
 */
function serve(line, answers) {
  if (line.trim() === "") return true;
  let request;
  try {
    request = JSON.parse(line);
  } catch (e) {
    log(`not JSON, ignored: ${line.slice(0, 200)}`);
    return true;
  }
  /** @type {any} */
  let response;
  try {
    response = handle(request);
  } catch (e) {
    log(`bad request: ${/** @type {Error} */ (e).message}`);
    if (typeof request?.id !== "number") return true;
    response = { id: request.id, skipped: `bad request: ${/** @type {Error} */ (e).message}` };
  }
  if (response === null) return false;
  if (response.hex instanceof Uint8Array) {
    // An encode answer: {"id": N, "hex": "..."}, the hex written 16 KiB at a time. Made whole (and copied by
    // JSON.stringify, and again when written), a large answer was fresh memory three times over.
    const { hex, ...rest } = response;
    answers.add(`${JSON.stringify(rest).slice(0, -1)},"hex":"`);
    for (let at = 0; at < hex.length; at += HEX_PIECE) answers.add(toHex(hex.subarray(at, at + HEX_PIECE)));
    answers.add('"}\n');
  } else {
    answers.add(JSON.stringify(response) + "\n");
  }
  return true;
}
const HEX_PIECE = 1 << 14;

// Requests are read with blocking reads of fd 0 into one buffer that is kept (and grown to the longest line),
// every complete line in it is answered, and the answers leave in one blocking write to fd 1 before the next
// read: the harness sends a window of requests, and a write per line would cost a system call each. Nothing
// waits for more input while an answer is held back. Reusing the two buffers matters: memory that is
// allocated and touched once per large request costs more in page faults than parsing it (process.stdin's
// stream allocated a chunk per read, and each answer was converted to a fresh Buffer of its own).

/** A request line's text. Almost every line is ASCII (JSON escapes aside, only str values can be anything
 * else): Node checks that with SIMD and copies the bytes as they are, where decoding UTF-8 cost about 10 ns
 * a byte (a quarter of a second for the corpus's 26 MB of large requests).
 * @param {Buffer} bytes @param {number} start @param {number} end */
const text = (bytes, start, end) =>
  isAscii(bytes.subarray(start, end)) ? bytes.toString("latin1", start, end) : bytes.toString("utf8", start, end);

/** The answers to one read, as UTF-8 in a buffer that is kept between reads. Short pieces of text are joined
 * first (one Buffer.write per PENDING characters, not per piece). */
class Answers {
  bytes = Buffer.allocUnsafe(1 << 20);
  length = 0;
  pending = "";

  /** @param {string} text */
  add(text) {
    this.pending += text;
    if (this.pending.length >= PENDING) this.copy();
  }

  copy() {
    const room = this.length + 3 * this.pending.length; // UTF-8 needs at most 3 bytes per UTF-16 code unit
    if (room > this.bytes.length) this.bytes = grown(this.bytes, this.length, room);
    this.length += this.bytes.write(this.pending, this.length);
    this.pending = "";
  }

  flush() {
    this.copy();
    for (let at = 0; at < this.length; ) at += retried(() => writeSync(1, this.bytes, at, this.length - at));
    this.length = 0;
  }
}
const PENDING = 1 << 14;

/** A larger buffer (at least twice the size) holding the first `used` bytes of `bytes`.
 * @param {Buffer} bytes @param {number} used @param {number} needed */
function grown(bytes, used, needed) {
  const larger = Buffer.allocUnsafe(Math.max(needed, 2 * bytes.length));
  bytes.copy(larger, 0, 0, used);
  return larger;
}

/** fd 0 and 1 are the blocking pipes the harness made; should one be non-blocking, wait and retry.
 * @param {() => number} io */
function retried(io) {
  for (;;) {
    try {
      return io();
    } catch (e) {
      if (/** @type {NodeJS.ErrnoException} */ (e).code !== "EAGAIN") throw e;
      Atomics.wait(PAUSE, 0, 0, 1);
    }
  }
}
const PAUSE = new Int32Array(new SharedArrayBuffer(4));

function main() {
  const answers = new Answers();
  let input = Buffer.allocUnsafe(1 << 20);
  let filled = 0; // input[0, filled) is read and not yet answered: the start of a line that has not ended
  for (;;) {
    if (filled === input.length) input = grown(input, filled, 2 * filled);
    const n = retried(() => readSync(0, input, filled, input.length - filled, null));
    if (n === 0) break;
    const read = input.subarray(0, filled + n);
    let start = 0;
    for (let end = read.indexOf(10, filled); end >= 0; end = read.indexOf(10, start)) {
      if (!serve(text(read, start, end), answers)) return answers.flush(); // "stop"
      start = end + 1;
    }
    answers.flush();
    filled = read.length - start;
    input.copyWithin(0, start, read.length);
  }
  if (filled > 0) serve(text(input, 0, filled), answers); // a last line without a newline
  answers.flush();
}

main();
