// The frame layer (FRAMES.md, issue 29): one Ignite 3 thin-client message as named fields <-> its frame bytes
// (the IGNI magic for the handshake kinds, a 4-byte big-endian length, then a sequence of MessagePack values).
//
// Every value goes through the runner's own value codec (codec.mjs, i.e. the library): decoding turns the
// frame's bytes into a list of typed values that a Cursor walks, and encoding collects typed values in layout
// order (a Writer) and encodes the list. Nothing here allocates by a declared length or count: the length is
// compared with the bytes present, and a count only bounds a loop that consumes values that already exist.
import { createRequire } from "node:module";
import { decodeAll, encodeAll } from "./codec.mjs";
import { WireError } from "./wireError.mjs";

/** @type {typeof import("node:fs")} (required, not imported: see runner.mjs) */
const { readFileSync } = createRequire(import.meta.url)("node:fs");
const REGISTRY = JSON.parse(readFileSync(new URL("../../schema/registry.json", import.meta.url), "utf8")).frames;

/** Frames are era 3.0 (UUIDs as ext 3 with little-endian halves). */
export const FRAME_ERA = "3.0";
export const MAGIC = Uint8Array.of(0x49, 0x47, 0x4e, 0x49); // "IGNI"

/** A registry table's bit values by name, as BigInt (flags may be any int; bits not named here are ignored).
 * @param {{name: string, bit_value: number}[]} table */
const bitValues = (table) => Object.fromEntries(table.map((f) => [f.name, BigInt(f.bit_value)]));
// PARTITION_ASSIGNMENT 1, NOTIFICATION 2 (adds no field: a notification is its payload), ERROR 4, SERVER_OP 8.
export const RESPONSE_FLAGS = bitValues(REGISTRY.response_flags);
const { PARTITION_ASSIGNMENT, ERROR, SERVER_OP } = RESPONSE_FLAGS;
export const SERVER_OP_RESPONSE_ERROR = bitValues(REGISTRY.server_op_response_flags).ERROR;

/** Every feature name a request's `features` may hold. */
export const FEATURES = new Set(REGISTRY.features.map((/** @type {{name: string}} */ f) => f.name));
// The three that add fields to sql-execute-request.
const SQL_DIRECT_TX_MAPPING = "SQL_DIRECT_TX_MAPPING";
const SQL_MULTISTATEMENT_SUPPORT = "SQL_MULTISTATEMENT_SUPPORT";
const SQL_PARTITION_AWARENESS = "SQL_PARTITION_AWARENESS";
for (const name of [SQL_DIRECT_TX_MAPPING, SQL_MULTISTATEMENT_SUPPORT, SQL_PARTITION_AWARENESS]) {
  if (!FEATURES.has(name)) throw new Error(`schema/registry.json frames.features has no ${name}`);
}
// The two that bring the direct-mapping forms of tx (spec 11.6), and the tx ids that start them (registry tx_ids).
const TX_PIGGYBACK = "TX_PIGGYBACK";
const TX_DIRECT_MAPPING = "TX_DIRECT_MAPPING";
const TX_IDS = Object.fromEntries(REGISTRY.tx_ids.map((/** @type {{name: string, id: number}} */ t) => [t.name, BigInt(t.id)]));
for (const name of [TX_PIGGYBACK, TX_DIRECT_MAPPING]) {
  if (!FEATURES.has(name)) throw new Error(`schema/registry.json frames.features has no ${name}`);
}
if (TX_IDS.FIRST_DIRECT === undefined || TX_IDS.DIRECT === undefined) throw new Error("schema/registry.json frames.tx_ids");
for (const flag of [PARTITION_ASSIGNMENT, ERROR, SERVER_OP, SERVER_OP_RESPONSE_ERROR]) {
  if (flag === undefined) throw new Error("schema/registry.json frames: a response flag this runner reads is missing");
}

/** @param {string} message */
const fieldType = (message) => new WireError("frame.field-type", message);
// FR-INT-RANGE: an int field is what Java reads with unpackInt, a long field with unpackLong (both typed ints).
const RANGES = { int: [-(2n ** 31n), 2n ** 31n - 1n], long: [-(2n ** 63n), 2n ** 63n - 1n] };
/** The typed type of a field type. @param {string} type */
const wireType = (type) => (type === "long" ? "int" : type);
/** @param {string} type @param {string} value a typed int's digits */
const inRange = (type, value) => {
  const r = RANGES[/** @type {"int" | "long"} */ (type)];
  return r === undefined || (BigInt(value) >= r[0] && BigInt(value) <= r[1]);
};
/** @param {string} message */
const fieldsError = (message) => new WireError("frame.fields", message);

// ---------------------------------------------------------------------------------------------- reading

/** The decoded values of one frame, taken in layout order. */
class Cursor {
  /** @param {any[]} values typed values */
  constructor(values) {
    this.values = values;
    this.at = 0;
  }

  /** The next value, whatever its type. @param {string} name */
  next(name) {
    if (this.at >= this.values.length) {
      throw new WireError("malformed.truncated", `${name}: the message ends after ${this.values.length} values`);
    }
    return this.values[this.at++];
  }

  /** The next value, which must be of `type`. @param {string} name @param {string} type */
  of(name, type) {
    const v = this.next(name);
    if (v.type !== wireType(type)) throw fieldType(`${name} (value ${this.at - 1}) is a ${v.type}, not a ${type}`);
    if (!inRange(type, v.value)) throw fieldType(`${name} is ${v.value}, outside the field's ${type} range`);
    return v;
  }

  /** @param {string} name */
  int(name) {
    return this.of(name, "int");
  }

  /** @param {string} name */
  long(name) {
    return this.of(name, "long");
  }

  /** The next value, nil or of `type`. @param {string} name @param {string} type */
  nullable(name, type) {
    return this.peekNil(name) ? this.next(name) : this.of(name, type);
  }

  /** Whether the next value is nil (not taken). @param {string} name */
  peekNil(name) {
    if (this.at >= this.values.length) this.next(name); // throws: the message ends here
    return this.values[this.at].type === "nil";
  }

  /** A count: an int >= 0. Returned as a number: it only bounds a loop that runs out of values first.
   * @param {string} name */
  count(name) {
    const v = this.next(name); // any int: a count is bounded by the values present, not by a Java type
    if (v.type !== "int") throw fieldType(`${name} (value ${this.at - 1}) is a ${v.type}, not an int`);
    const n = BigInt(v.value);
    if (n < 0n) throw fieldType(`${name} is negative: ${n}`);
    return Number(n);
  }

  /** Every value not taken yet. */
  rest() {
    const rest = this.values.slice(this.at);
    this.at = this.values.length;
    return rest;
  }

  /** The message's last field was read. @param {string} kind */
  end(kind) {
    const left = this.values.length - this.at;
    if (left > 0) throw new WireError("frame.trailing", `${left} values after the last field of ${kind}`);
  }
}

/** features: a bin holding a bit set, bit i in byte i/8 at bit i%8 (BitSet.toByteArray); any length.
 * @param {Cursor} c @param {string} name @returns {number[]} the set bits, ascending */
function readFeatures(c, name) {
  const bytes = Buffer.from(c.of(name, "bin").hex, "hex");
  const bits = [];
  for (let i = 0; i < bytes.length; i++) {
    for (let b = 0; b < 8; b++) if (bytes[i] & (1 << b)) bits.push(8 * i + b);
  }
  return bits;
}

/** extensions: an int count N, then N pairs of a str key and one value of any type.
 * @param {Cursor} c @param {string} name @returns {[string, object][]} */
function readExtensions(c, name) {
  const n = c.count(`${name} count`);
  /** @type {[string, object][]} */
  const pairs = [];
  for (let i = 0; i < n; i++) {
    const key = c.of(`${name}[${i}] key`, "str").value;
    pairs.push([key, c.next(`${name}[${i}] value`)]);
  }
  return pairs;
}

/** uuid-list: an int count N, then N uuids. @param {Cursor} c @param {string} name */
function readUuidList(c, name) {
  const n = c.count(`${name} count`);
  const uuids = [];
  for (let i = 0; i < n; i++) uuids.push(c.of(`${name}[${i}]`, "uuid"));
  return uuids;
}

/** The error object: six consecutive values. @param {Cursor} c */
function readError(c) {
  return {
    trace_id: c.of("error.trace_id", "uuid"),
    code: c.int("error.code"),
    class_name: c.of("error.class_name", "str"),
    message: c.nullable("error.message", "str"),
    stack_trace: c.nullable("error.stack_trace", "str"),
    extensions: c.peekNil("error.extensions") ? c.next("error.extensions") : readExtensions(c, "error.extensions"),
  };
}

/** The response header, shared by every server -> client response kind.
 * @param {Cursor} c @returns {[Record<string, any>, bigint]} the fields read, and the flags */
function readResponseHeader(c) {
  /** @type {Record<string, any>} */
  const f = { request_id: c.long("request_id"), flags: c.int("flags") };
  const flags = BigInt(f.flags.value);
  if (flags & PARTITION_ASSIGNMENT) f.partition_assignment_timestamp = c.long("partition_assignment_timestamp");
  f.observable_timestamp = c.long("observable_timestamp");
  if (flags & ERROR) f.error = readError(c);
  return [f, flags];
}

/** @param {Cursor} c */
function readHandshakeRequest(c) {
  return {
    version_major: c.int("version_major"),
    version_minor: c.int("version_minor"),
    version_patch: c.int("version_patch"),
    client_code: c.int("client_code"),
    features: readFeatures(c, "features"),
    extensions: readExtensions(c, "extensions"),
  };
}

/** @param {Cursor} c */
function readHandshakeResponse(c) {
  /** @type {Record<string, any>} */
  const f = {
    version_major: c.int("version_major"),
    version_minor: c.int("version_minor"),
    version_patch: c.int("version_patch"),
  };
  if (!c.peekNil("error")) {
    f.error = readError(c); // a failed handshake ends here
    return f;
  }
  f.error = c.next("error");
  f.idle_timeout = c.long("idle_timeout");
  f.node_id = c.of("node_id", "uuid");
  f.node_name = c.of("node_name", "str");
  f.cluster_ids = readUuidList(c, "cluster_ids");
  f.cluster_name = c.of("cluster_name", "str");
  f.observable_timestamp = c.long("observable_timestamp");
  f.product_major = c.int("product_major");
  f.product_minor = c.int("product_minor");
  f.product_maintenance = c.int("product_maintenance");
  f.product_patch = c.nullable("product_patch", "int");
  f.product_pre_release = c.nullable("product_pre_release", "str");
  f.features = readFeatures(c, "features");
  f.extensions = readExtensions(c, "extensions");
  return f;
}

/** @param {Cursor} c */
function readRequest(c) {
  return { op: c.int("op"), request_id: c.long("request_id"), payload: c.rest() };
}

/** @param {Cursor} c */
function readResponse(c) {
  const [f, flags] = readResponseHeader(c);
  if (flags & ERROR) return f;
  if (flags & SERVER_OP) f.server_op = c.int("server_op");
  f.payload = c.rest();
  return f;
}

/** @param {Cursor} c */
function readServerOpResponse(c) {
  /** @type {Record<string, any>} */
  const f = { op: c.int("op"), request_id: c.long("request_id"), flags: c.int("flags") };
  if (BigInt(f.flags.value) & SERVER_OP_RESPONSE_ERROR) f.error = readError(c);
  else f.payload = c.rest();
  return f;
}

/** tx, then its direct-mapping fields when its value and the features bring them (spec 11.6).
 * @param {Cursor} c @param {Set<string>} features @param {Record<string, any>} f */
function readTx(c, features, f) {
  f.tx = c.nullable("tx", "long");
  const tx = f.tx.type === "int" ? BigInt(f.tx.value) : null;
  if (tx === TX_IDS.FIRST_DIRECT && features.has(TX_PIGGYBACK)) {
    f.tx_observable_timestamp = c.long("tx_observable_timestamp");
    f.tx_read_only = c.of("tx_read_only", "bool");
    f.tx_timeout = c.long("tx_timeout");
  } else if (tx === TX_IDS.DIRECT && features.has(TX_DIRECT_MAPPING)) {
    f.tx_enlistment_token = c.long("tx_enlistment_token");
    f.tx_id = c.of("tx_id", "uuid");
    f.tx_commit_table_id = c.int("tx_commit_table_id");
    f.tx_commit_partition = c.int("tx_commit_partition");
    f.tx_coordinator_id = c.of("tx_coordinator_id", "uuid");
    f.tx_timeout = c.long("tx_timeout");
  }
}

/** @param {Cursor} c @param {Set<string>} features */
function readTupleRequest(c, features) {
  /** @type {Record<string, any>} */
  const f = { op: c.int("op"), request_id: c.long("request_id"), table_id: c.int("table_id") };
  readTx(c, features, f);
  f.schema_version = c.int("schema_version");
  f.no_value_set = c.of("no_value_set", "bitmask");
  f.tuple = c.of("tuple", "bin");
  return f;
}

/** The response to a request whose tx was -1: writeTxMeta's four fields, then the op's payload. @param {Cursor} c */
function readTxPiggybackResponse(c) {
  const [f, flags] = readResponseHeader(c);
  if (flags & ERROR) return f;
  f.tx_resource_id = c.long("tx_resource_id");
  f.tx_id = c.of("tx_id", "uuid");
  f.tx_coordinator_id = c.of("tx_coordinator_id", "uuid");
  f.tx_timeout = c.long("tx_timeout");
  f.payload = c.rest();
  return f;
}

/** The response to a request whose tx was 0: writeTxMeta's three fields, then the op's payload. @param {Cursor} c */
function readTxDirectResponse(c) {
  const [f, flags] = readResponseHeader(c);
  if (flags & ERROR) return f;
  f.tx_primary_node = c.of("tx_primary_node", "str");
  f.tx_enlistment_token = c.long("tx_enlistment_token");
  f.tx_noop = c.of("tx_noop", "bool");
  f.payload = c.rest();
  return f;
}

/** @param {Cursor} c */
function readTupleUpsertResponse(c) {
  const [f, flags] = readResponseHeader(c);
  if (!(flags & ERROR)) f.schema_version = c.int("schema_version");
  return f;
}

/** @param {Cursor} c */
function readTupleGetResponse(c) {
  const [f, flags] = readResponseHeader(c);
  if (!(flags & ERROR)) {
    f.schema_version = c.int("schema_version");
    f.tuple = c.nullable("tuple", "bin");
  }
  return f;
}

/** Whether arguments_tuple follows this arguments_count: neither nil nor the int 0 (spec 11.7). @param {any} count */
function bringsTuple(count) {
  return count?.type !== "nil" && !(count?.type === "int" && String(count.value) === "0");
}

/** @param {Cursor} c @param {Set<string>} features */
function readSqlExecuteRequest(c, features) {
  /** @type {Record<string, any>} */
  const f = { op: c.int("op"), request_id: c.long("request_id") };
  if (features.has(SQL_DIRECT_TX_MAPPING)) f.direct_tx_mapping = c.of("direct_tx_mapping", "bool");
  readTx(c, features, f);
  f.schema = c.nullable("schema", "str");
  f.page_size = c.nullable("page_size", "int");
  f.query_timeout = c.nullable("query_timeout", "long");
  f.idle_timeout = c.nullable("idle_timeout", "long");
  f.time_zone = c.nullable("time_zone", "str");
  f.property_count = c.int("property_count");
  f.properties = c.of("properties", "bin");
  if (features.has(SQL_MULTISTATEMENT_SUPPORT)) f.query_modifiers = c.int("query_modifiers");
  f.statement = c.of("statement", "str");
  f.arguments_count = c.nullable("arguments_count", "int");
  if (bringsTuple(f.arguments_count)) f.arguments_tuple = c.of("arguments_tuple", "bin");
  f.observable_timestamp = c.long("observable_timestamp");
  if (features.has(SQL_PARTITION_AWARENESS)) f.partition_awareness = c.of("partition_awareness", "bool");
  return f;
}

// ---------------------------------------------------------------------------------------------- writing

const BIN32_MAX = 2 ** 32 - 1;
const LENGTH_MAX = 2 ** 31 - 1; // the 4-byte length is signed
const ERA_TYPES = new Set(["uuid", "bitmask"]);

/**
 * The typed values of one message, collected from `fields` in layout order. Errors come in the contract's
 * order: a missing or unknown field (frame.fields) before a field of the wrong type (frame.field-type) or an
 * int outside int64 (unrepresentable), so the first of those is remembered and thrown by finish(), once every
 * field has been matched. A field whose bits decide which others exist (flags) must have its type
 * at once: its wrong type is thrown.
 */
class Writer {
  /** @param {Record<string, any>} fields */
  constructor(fields) {
    if (typeof fields !== "object" || fields === null || Array.isArray(fields)) {
      throw fieldsError("fields is not a JSON object");
    }
    this.fields = fields;
    /** @type {Set<string>} */
    this.taken = new Set();
    /** @type {object[]} */
    this.values = [];
    /** @type {WireError | null} the first field of the wrong type or out of range */
    this.badValue = null;
  }

  /** The field's value (frame.fields when it is missing). @param {string} name */
  take(name) {
    if (!Object.hasOwn(this.fields, name)) throw fieldsError(`field ${name} is missing`);
    this.taken.add(name);
    return this.fields[name];
  }

  /** @param {string} message */
  mistyped(message) {
    this.badValue ??= fieldType(message);
  }

  /** Append a typed value, which must be of `type` (or nil, when `nullable`): uuid and bitmask of era 3.0, an int
   * within int64 (every int of a layout is a Java int or long; a payload's values are not limited here).
   * @param {string} name @param {any} v @param {string} type @param {boolean} nullable */
  append(name, v, type, nullable) {
    const got = typeof v === "object" && v !== null ? v.type : undefined;
    if (nullable && got === "nil") this.values.push(v);
    else if (got !== wireType(type) || (ERA_TYPES.has(type) && v.era !== FRAME_ERA)) {
      this.mistyped(`${name} is ${JSON.stringify(v)}, not a ${type}${ERA_TYPES.has(type) ? ` of era ${FRAME_ERA}` : ""}${nullable ? " or nil" : ""}`);
    } else if (!inRange(type, v.value)) {
      this.badValue ??= new WireError("unrepresentable", `${name} is ${v.value}, outside the field's ${type} range`);
    } else this.values.push(v);
    return v;
  }

  /** @param {string} name @param {string} type */
  of(name, type) {
    return this.append(name, this.take(name), type, false);
  }

  /** @param {string} name */
  int(name) {
    return this.of(name, "int");
  }

  /** @param {string} name */
  long(name) {
    return this.of(name, "long");
  }

  /** @param {string} name @param {string} type */
  nullable(name, type) {
    return this.append(name, this.take(name), type, true);
  }

  /** A field that decides which others exist: its wrong type cannot wait (an int outside int64 still decides,
   * by its bits, and is refused in turn). @param {string} name @param {string} type @param {boolean} nullable */
  deciding(name, type, nullable) {
    const v = this.take(name);
    const got = typeof v === "object" && v !== null ? v.type : undefined;
    if (got !== wireType(type) && !(nullable && got === "nil")) {
      throw fieldType(`${name} decides which fields follow and is ${JSON.stringify(v)}, not a ${type}${nullable ? " or nil" : ""}`);
    }
    return this.append(name, v, type, nullable);
  }

  /** A value the layout has (an extension value, a payload element): any typed value. @param {string} name @param {any} v */
  any(name, v) {
    if (typeof v === "object" && v !== null && typeof v.type === "string") this.values.push(v);
    else this.mistyped(`${name} is not a typed value: ${JSON.stringify(v)}`);
  }

  /** An int count. @param {number} n */
  count(n) {
    this.values.push({ type: "int", value: String(n) });
  }

  /** Reject fields the layout does not have, then a remembered wrong type. @param {string} kind */
  finish(kind) {
    const unknown = Object.keys(this.fields).filter((name) => !this.taken.has(name));
    if (unknown.length > 0) throw fieldsError(`${kind} has no field ${unknown.join(", ")} here`);
    if (this.badValue !== null) throw this.badValue;
    return this.values;
  }
}

/** features: the set bit indices -> the minimal bin (no trailing zero bytes; none set = empty bin).
 * @param {Writer} w @param {string} name */
function writeFeatures(w, name) {
  const bits = w.take(name);
  const ascending = (/** @type {number} */ i, /** @type {number} */ at, /** @type {number[]} */ all) =>
    Number.isSafeInteger(i) && i >= 0 && (at === 0 || i > all[at - 1]);
  if (!Array.isArray(bits) || !bits.every(ascending)) {
    w.mistyped(`${name} is not an array of strictly ascending bit indices: ${JSON.stringify(bits)}`);
    return;
  }
  const size = bits.length === 0 ? 0 : Math.floor(bits[bits.length - 1] / 8) + 1;
  if (size > BIN32_MAX) {
    w.badValue ??= new WireError("unrepresentable", `${name}: bit ${bits[bits.length - 1]} needs a bin of ${size} bytes, more than bin 32 holds`);
    return;
  }
  const bytes = Buffer.alloc(size);
  for (const i of bits) bytes[i >> 3] |= 1 << (i & 7);
  w.values.push({ type: "bin", hex: bytes.toString("hex") });
}

/** extensions: the [key, typed value] pairs -> count, then key and value of each.
 * @param {Writer} w @param {string} name @param {any} pairs (taken already) */
function writeExtensions(w, name, pairs) {
  if (!Array.isArray(pairs)) {
    w.mistyped(`${name} is not an array of [key, value] pairs: ${JSON.stringify(pairs)}`);
    return;
  }
  w.count(pairs.length);
  pairs.forEach((pair, i) => {
    if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== "string") {
      w.mistyped(`${name}[${i}] is not a [str key, typed value] pair: ${JSON.stringify(pair)}`);
      return;
    }
    w.values.push({ type: "str", value: pair[0] });
    w.any(`${name}[${i}] value`, pair[1]);
  });
}

/** uuid-list: typed uuids -> count, then each. @param {Writer} w @param {string} name */
function writeUuidList(w, name) {
  const uuids = w.take(name);
  if (!Array.isArray(uuids)) {
    w.mistyped(`${name} is not an array of uuids: ${JSON.stringify(uuids)}`);
    return;
  }
  w.count(uuids.length);
  uuids.forEach((u, i) => w.append(`${name}[${i}]`, u, "uuid", false));
}

const ERROR_MEMBERS = ["trace_id", "code", "class_name", "message", "stack_trace", "extensions"];

/** The error object: six consecutive values. Not an object, or a typed value (no member of it is called "type"):
 * frame.field-type; other members than the six: frame.fields. @param {Writer} w @param {any} error (taken already) */
function writeError(w, error) {
  if (typeof error !== "object" || error === null || Array.isArray(error) || Object.hasOwn(error, "type")) {
    w.mistyped(`error is not an error object: ${JSON.stringify(error)}`);
    return;
  }
  const missing = ERROR_MEMBERS.filter((m) => !Object.hasOwn(error, m));
  const unknown = Object.keys(error).filter((m) => !ERROR_MEMBERS.includes(m));
  if (missing.length + unknown.length > 0) {
    throw fieldsError(`error object: ${[...missing.map((m) => `${m} missing`), ...unknown.map((m) => `${m} unknown`)].join(", ")}`);
  }
  w.append("error.trace_id", error.trace_id, "uuid", false);
  w.append("error.code", error.code, "int", false);
  w.append("error.class_name", error.class_name, "str", false);
  w.append("error.message", error.message, "str", true);
  w.append("error.stack_trace", error.stack_trace, "str", true);
  if (error.extensions?.type === "nil") w.values.push(error.extensions);
  else writeExtensions(w, "error.extensions", error.extensions);
}

/** The response header; returns the flags. @param {Writer} w */
function writeResponseHeader(w) {
  w.long("request_id");
  const flags = BigInt(w.deciding("flags", "int", false).value);
  if (flags & PARTITION_ASSIGNMENT) w.long("partition_assignment_timestamp");
  w.long("observable_timestamp");
  if (flags & ERROR) writeError(w, w.take("error"));
  return flags;
}

/** payload: typed values, each written as it is. @param {Writer} w */
function writePayload(w) {
  const payload = w.take("payload");
  if (!Array.isArray(payload)) w.mistyped(`payload is not an array of typed values: ${JSON.stringify(payload)}`);
  else payload.forEach((v, i) => w.any(`payload[${i}]`, v));
}

/** @param {Writer} w */
function writeHandshakeRequest(w) {
  w.int("version_major");
  w.int("version_minor");
  w.int("version_patch");
  w.int("client_code");
  writeFeatures(w, "features");
  writeExtensions(w, "extensions", w.take("extensions"));
}

/** @param {Writer} w */
function writeHandshakeResponse(w) {
  w.int("version_major");
  w.int("version_minor");
  w.int("version_patch");
  // The error decides what follows: typed nil, else an error object (a failed handshake ends with it).
  const error = w.take("error");
  if (error?.type !== "nil") return writeError(w, error);
  w.values.push(error);
  w.long("idle_timeout");
  w.of("node_id", "uuid");
  w.of("node_name", "str");
  writeUuidList(w, "cluster_ids");
  w.of("cluster_name", "str");
  w.long("observable_timestamp");
  w.int("product_major");
  w.int("product_minor");
  w.int("product_maintenance");
  w.nullable("product_patch", "int");
  w.nullable("product_pre_release", "str");
  writeFeatures(w, "features");
  writeExtensions(w, "extensions", w.take("extensions"));
}

/** @param {Writer} w */
function writeRequest(w) {
  w.int("op");
  w.long("request_id");
  writePayload(w);
}

/** @param {Writer} w */
function writeResponse(w) {
  const flags = writeResponseHeader(w);
  if (flags & ERROR) return;
  if (flags & SERVER_OP) w.int("server_op");
  writePayload(w);
}

/** @param {Writer} w */
function writeServerOpResponse(w) {
  w.int("op");
  w.long("request_id");
  if (BigInt(w.deciding("flags", "int", false).value) & SERVER_OP_RESPONSE_ERROR) writeError(w, w.take("error"));
  else writePayload(w);
}

/** tx, then its direct-mapping fields (spec 11.6): with a feature negotiated, tx's value decides which fields
 * follow, so its wrong type cannot wait. @param {Writer} w @param {Set<string>} features */
function writeTx(w, features) {
  const deciding = features.has(TX_PIGGYBACK) || features.has(TX_DIRECT_MAPPING);
  const v = deciding ? w.deciding("tx", "long", true) : w.nullable("tx", "long");
  const tx = v?.type === "int" ? BigInt(v.value) : null;
  if (tx === TX_IDS.FIRST_DIRECT && features.has(TX_PIGGYBACK)) {
    w.long("tx_observable_timestamp");
    w.of("tx_read_only", "bool");
    w.long("tx_timeout");
  } else if (tx === TX_IDS.DIRECT && features.has(TX_DIRECT_MAPPING)) {
    w.long("tx_enlistment_token");
    w.of("tx_id", "uuid");
    w.int("tx_commit_table_id");
    w.int("tx_commit_partition");
    w.of("tx_coordinator_id", "uuid");
    w.long("tx_timeout");
  }
}

/** @param {Writer} w @param {Set<string>} features */
function writeTupleRequest(w, features) {
  w.int("op");
  w.long("request_id");
  w.int("table_id");
  writeTx(w, features);
  w.int("schema_version");
  w.of("no_value_set", "bitmask");
  w.of("tuple", "bin");
}

/** @param {Writer} w */
function writeTupleUpsertResponse(w) {
  if (!(writeResponseHeader(w) & ERROR)) w.int("schema_version");
}

/** @param {Writer} w */
function writeTupleGetResponse(w) {
  if (writeResponseHeader(w) & ERROR) return;
  w.int("schema_version");
  w.nullable("tuple", "bin");
}

/** @param {Writer} w */
function writeTxPiggybackResponse(w) {
  if (writeResponseHeader(w) & ERROR) return;
  w.long("tx_resource_id");
  w.of("tx_id", "uuid");
  w.of("tx_coordinator_id", "uuid");
  w.long("tx_timeout");
  writePayload(w);
}

/** @param {Writer} w */
function writeTxDirectResponse(w) {
  if (writeResponseHeader(w) & ERROR) return;
  w.of("tx_primary_node", "str");
  w.long("tx_enlistment_token");
  w.of("tx_noop", "bool");
  writePayload(w);
}

/** @param {Writer} w @param {Set<string>} features */
function writeSqlExecuteRequest(w, features) {
  w.int("op");
  w.long("request_id");
  if (features.has(SQL_DIRECT_TX_MAPPING)) w.of("direct_tx_mapping", "bool");
  writeTx(w, features);
  w.nullable("schema", "str");
  w.nullable("page_size", "int");
  w.nullable("query_timeout", "long");
  w.nullable("idle_timeout", "long");
  w.nullable("time_zone", "str");
  w.int("property_count");
  w.of("properties", "bin");
  if (features.has(SQL_MULTISTATEMENT_SUPPORT)) w.int("query_modifiers");
  w.of("statement", "str");
  // Nil and the int 0 have no tuple (spec 11.7); a count of the wrong type still brings it (frame.fields when missing).
  if (bringsTuple(w.nullable("arguments_count", "int"))) w.of("arguments_tuple", "bin");
  w.long("observable_timestamp");
  if (features.has(SQL_PARTITION_AWARENESS)) w.of("partition_awareness", "bool");
}

// ---------------------------------------------------------------------------------------------- the kinds

/**
 * @typedef {object} Kind
 * @property {boolean} magic the frame starts with IGNI
 * @property {(c: Cursor, features: Set<string>) => Record<string, any>} read
 * @property {(w: Writer, features: Set<string>) => void} write
 */
/** @type {Map<string, Kind>} */
const KINDS = new Map([
  ["handshake-request", { magic: true, read: readHandshakeRequest, write: writeHandshakeRequest }],
  ["handshake-response", { magic: true, read: readHandshakeResponse, write: writeHandshakeResponse }],
  ["request", { magic: false, read: readRequest, write: writeRequest }],
  ["response", { magic: false, read: readResponse, write: writeResponse }],
  ["server-op-response", { magic: false, read: readServerOpResponse, write: writeServerOpResponse }],
  ["tuple-request", { magic: false, read: readTupleRequest, write: writeTupleRequest }],
  ["tuple-upsert-response", { magic: false, read: readTupleUpsertResponse, write: writeTupleUpsertResponse }],
  ["tuple-get-response", { magic: false, read: readTupleGetResponse, write: writeTupleGetResponse }],
  ["sql-execute-request", { magic: false, read: readSqlExecuteRequest, write: writeSqlExecuteRequest }],
  ["tx-piggyback-response", { magic: false, read: readTxPiggybackResponse, write: writeTxPiggybackResponse }],
  ["tx-direct-response", { magic: false, read: readTxDirectResponse, write: writeTxDirectResponse }],
]);

/** @param {string} kind */
export const isKind = (kind) => KINDS.has(kind);

/** @param {string} kind */
function kindOf(kind) {
  const k = KINDS.get(kind);
  if (k === undefined) throw new Error(`unknown frame kind '${kind}'`);
  return k;
}

/**
 * The frame of one message.
 * @param {string} kind @param {Record<string, any>} fields @param {string[]} features negotiated feature names
 * @returns {Uint8Array}
 */
export function encode(kind, fields, features = []) {
  const k = kindOf(kind);
  const unknown = features.filter((name) => !FEATURES.has(name));
  if (unknown.length > 0) throw fieldsError(`unknown feature names: ${unknown.join(", ")}`);
  const w = new Writer(fields);
  k.write(w, new Set(features));
  const body = encodeAll(w.finish(kind));
  if (body.length > LENGTH_MAX) throw new WireError("unrepresentable", `${body.length} bytes do not fit the 4-byte signed length`);
  const head = k.magic ? MAGIC.length : 0;
  const frame = new Uint8Array(head + 4 + body.length);
  frame.set(MAGIC.subarray(0, head));
  new DataView(frame.buffer).setInt32(head, body.length);
  frame.set(body, head + 4);
  return frame;
}

/**
 * The message in one frame, in the steps (and so the error classes) of FRAMES.md section 4.
 * @param {string} kind @param {Uint8Array} bytes @param {string[]} features negotiated feature names
 * @returns {Record<string, any>} the fields
 */
export function decode(kind, bytes, features = []) {
  const k = kindOf(kind);
  let at = 0;
  if (k.magic) {
    if (bytes.length < MAGIC.length) throw truncated(`the magic needs ${MAGIC.length} bytes, ${bytes.length} present`);
    if (!MAGIC.every((b, i) => bytes[i] === b)) {
      throw new WireError("frame.magic", `${kind} starts with ${hex(bytes.subarray(0, 4))}, not 49474e49 (IGNI)`);
    }
    at = MAGIC.length;
  }
  if (bytes.length - at < 4) throw truncated(`the length needs 4 bytes at byte ${at}, ${bytes.length - at} present`);
  const length = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getInt32(at);
  if (length < 0) throw new WireError("frame.length", `the length at byte ${at} is negative: ${length}`);
  at += 4;
  if (bytes.length - at < length) throw truncated(`the length says ${length} bytes, ${bytes.length - at} follow it`);
  const c = new Cursor(decodeAll(bytes.subarray(at, at + length), FRAME_ERA));
  const fields = k.read(c, new Set(features));
  c.end(kind);
  const after = bytes.length - at - length;
  if (after > 0) throw new WireError("frame.trailing", `${after} bytes after the ${length}-byte frame`);
  return fields;
}

/** @param {string} message */
const truncated = (message) => new WireError("malformed.truncated", message);
/** @param {Uint8Array} bytes */
const hex = (bytes) => Buffer.from(bytes).toString("hex");
