// Runner protocol v1 (schema/protocol.schema.json): one JSON request per stdin line, one JSON response per
// stdout line, in order. Logs go to stderr only. The codec lives in codec.mjs.
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { decodeAll, encodeAll, fromHex, toHex } from "./codec.mjs";
import { ERAS } from "./igniteExt.mjs";
import { WireError } from "./wireError.mjs";

const PROTOCOL = 1;
const CORPUS_MAJORS = [1];
const LIBRARY = "@msgpack/msgpack";
const libraryVersion = JSON.parse(
  readFileSync(new URL("./node_modules/@msgpack/msgpack/package.json", import.meta.url), "utf8"),
).version;

/** @param {string} text */
const log = (text) => process.stderr.write(`[js-runner] ${text}\n`);

/** @param {object} response */
const send = (response) => process.stdout.write(JSON.stringify(response) + "\n");

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
        capabilities: { ops: ["encode", "decode"], eras: ERAS },
      };
    case "encode":
      return answer(request.id, () => ({ hex: toHex(encodeAll(request.values)) }));
    case "decode":
      return answer(request.id, () => ({ values: decodeAll(fromHex(request.hex), request.era) }));
    case "stop":
      return null;
    default:
      throw new Error(`unknown cmd '${request.cmd}'`);
  }
}

/**
 * Run one request: a WireError is the input's fault (error response); anything else is the runner's, reported
 * as "skipped" so the harness shows it instead of a wrong verdict.
 * @param {number} id @param {() => object} work
 */
function answer(id, work) {
  try {
    return { id, ...work() };
  } catch (e) {
    if (e instanceof WireError) return { id, error: { class: e.errorClass, message: e.message } };
    const err = /** @type {Error} */ (e);
    log(`request ${id}: ${err.stack ?? err}`);
    return { id, skipped: `runner error: ${err.message}` };
  }
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on("line", (line) => {
  if (line.trim() === "") return;
  let request;
  try {
    request = JSON.parse(line);
  } catch (e) {
    log(`not JSON, ignored: ${line.slice(0, 200)}`);
    return;
  }
  let response;
  try {
    response = handle(request);
  } catch (e) {
    log(`bad request: ${/** @type {Error} */ (e).message}`);
    response = typeof request?.id === "number" ? { id: request.id, skipped: `bad request: ${/** @type {Error} */ (e).message}` } : null;
    if (response === null) return;
  }
  if (response === null) {
    lines.close(); // "stop": exit without answering
    return;
  }
  send(response);
});
// Exit once every response has left: a large response to a pipe is written asynchronously, and process.exit()
// would drop what is still queued. The empty write's callback runs after all earlier writes are flushed.
lines.on("close", () => {
  process.stdin.destroy();
  process.stdout.write("", () => process.exit(0));
});
