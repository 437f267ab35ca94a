// Runner protocol v1 (schema/protocol.schema.json): one JSON request per stdin line, one JSON response per
// stdout line, in order. Logs go to stderr only. The codec lives in codec.mjs.
import { isAscii } from "node:buffer";
import { readFileSync } from "node:fs";
import * as binaryTuple from "./binaryTuple.mjs";
import { decodeAll, encodeAll, fromHex, toHex } from "./codec.mjs";
import { ERAS } from "./igniteExt.mjs";
import { WireError } from "./wireError.mjs";

const PROTOCOL = 1;
const CORPUS_MAJORS = [1];
const FORMATS = ["msgpack", "binary-tuple", "object", "object-array", "table-row", "collection", "compute-arg"];
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
 * An encode or decode request, routed by "format": msgpack (the default) here, the Binary Tuple formats
 * (spec 6.2) in binaryTuple.mjs.
 * @param {any} request
 */
function run(request) {
  const { cmd, era, format = "msgpack", columns = [] } = request;
  if (!ERAS.includes(era)) return { skipped: `unknown era '${era}'` };
  if (!FORMATS.includes(format)) return { skipped: `unknown format '${format}'` };
  if (format === "msgpack") {
    return cmd === "encode" ? { hex: toHex(encodeAll(request.values)) } : { values: decodeAll(fromHex(request.hex), era) };
  }
  return cmd === "encode"
    ? { hex: toHex(binaryTuple.encode(format, request.values, era)) }
    : { values: binaryTuple.decode(format, fromHex(request.hex), era, columns) };
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
    if (e instanceof WireError) return { id, error: { class: e.errorClass, message: e.message } };
    if (e instanceof binaryTuple.NotPerformed) return { id, skipped: e.message };
    const err = /** @type {Error} */ (e);
    log(`request ${id}: ${withStack(work) ?? err}`);
    return { id, skipped: `runner error: ${err.message}` };
  }
}

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
 * The answer line for one request line, "" for a line without an answer, or null for "stop".
 * @param {string} line
 */
function serve(line) {
  if (line.trim() === "") return "";
  let request;
  try {
    request = JSON.parse(line);
  } catch (e) {
    log(`not JSON, ignored: ${line.slice(0, 200)}`);
    return "";
  }
  let response;
  try {
    response = handle(request);
  } catch (e) {
    log(`bad request: ${/** @type {Error} */ (e).message}`);
    if (typeof request?.id !== "number") return "";
    response = { id: request.id, skipped: `bad request: ${/** @type {Error} */ (e).message}` };
  }
  return response === null ? null : JSON.stringify(response) + "\n";
}

// Every complete line a read delivered is answered, then the answers leave in one write: the harness sends a
// window of requests, and a write per line would cost a system call each. Nothing waits for more input while
// an answer is held back, because the write happens before the next read. Lines are cut from the bytes and
// each is decoded to text once (a line that spans reads is joined first, so no UTF-8 sequence is split).

/** A request line's text. Almost every line is ASCII (JSON escapes aside, only str values can be anything
 * else): Node checks that with SIMD and copies the bytes as they are, where decoding UTF-8 cost about 10 ns
 * a byte (a quarter of a second for the corpus's 26 MB of large requests).
 * @param {Buffer} bytes */
const text = (bytes) => (isAscii(bytes) ? bytes.toString("latin1") : bytes.toString("utf8"));

/** @type {Buffer[]} the start of a line that has not ended yet */
let partial = [];
let stopped = false;
process.stdin.on("data", (/** @type {Buffer} */ chunk) => {
  if (stopped) return;
  let end = chunk.indexOf(10);
  if (end < 0) {
    partial.push(chunk);
    return;
  }
  let start = 0;
  let out = "";
  while (end >= 0) {
    let line;
    if (partial.length > 0) {
      partial.push(chunk.subarray(0, end));
      line = text(Buffer.concat(partial));
      partial = [];
    } else {
      line = text(chunk.subarray(start, end));
    }
    const answer = serve(line);
    if (answer === null) {
      stopped = true; // "stop": exit without answering
      break;
    }
    out += answer;
    start = end + 1;
    end = chunk.indexOf(10, start);
  }
  if (!stopped && start < chunk.length) partial.push(chunk.subarray(start));
  if (out) process.stdout.write(out);
  if (stopped) finish();
});
process.stdin.on("end", () => {
  if (stopped) return;
  const rest = text(Buffer.concat(partial));
  const answer = rest === "" ? "" : serve(rest);
  if (answer) process.stdout.write(answer);
  finish();
});

// Exit once every response has left: a large response to a pipe is written asynchronously, and process.exit()
// would drop what is still queued. The empty write's callback runs after all earlier writes are flushed.
function finish() {
  process.stdin.destroy();
  process.stdout.write("", () => process.exit(0));
}
