// The frame layer (spec.md 11): one Ignite 3 thin-client message as named fields <-> its frame bytes (the IGNI
// magic for the handshake kinds, a 4-byte big-endian length, then a sequence of MessagePack values).
//
// The message layouts are data: schema/registry.json frame_layouts, walked both ways with one condition evaluator
// (holds), the shape every runner shares (runners/PROTOCOL.md, "The frame codec"). Every value goes through the
// runner's own value codec (codec.mjs, i.e. the library): decoding turns the frame's bytes into a list of typed
// values that a Cursor walks, and encoding collects typed values in layout order (a Writer) and encodes the list.
// Nothing here allocates by a declared length or count: the length is compared with the bytes present, and a
// count only bounds a loop that consumes values that already exist.
import { createRequire } from "node:module";
import { decodeAll, encodeAll } from "./codec.mjs";
import { WireError } from "./wireError.mjs";

/** @type {typeof import("node:fs")} (required, not imported: see runner.mjs) */
const { readFileSync } = createRequire(import.meta.url)("node:fs");
const REGISTRY = JSON.parse(readFileSync(new URL("../../schema/registry.json", import.meta.url), "utf8"));

/** Frames are era 3.0 (UUIDs as ext 3 with little-endian halves). */
export const FRAME_ERA = "3.0";
export const MAGIC = Uint8Array.of(0x49, 0x47, 0x4e, 0x49); // "IGNI"

/** Every feature name a request's `features` may hold. */
export const FEATURES = new Set(REGISTRY.frames.features.map((/** @type {{name: string}} */ f) => f.name));

/**
 * The registry's layouts (registry.schema.json $defs/frame_layouts).
 * @typedef {{flags?: {mask: number, equals: number}, nil?: string, feature?: string,
 *   tx_form?: {feature: string, tx: number}, not_nil_or_zero?: string}} Condition
 * @typedef {{name: string, type: string, when?: Condition}} Field
 * @typedef {{kind: string, magic: boolean, fields: Field[]}} Message
 */
/** @type {Map<string, Message>} */
const LAYOUTS = new Map(REGISTRY.frame_layouts.messages.map((/** @type {Message} */ m) => [m.kind, m]));
/** @type {Field[]} */
const ERROR_OBJECT = REGISTRY.frame_layouts.error_object;

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

/**
 * Whether a field with condition `when` is present, over the fields before it (as read, or as given to encode)
 * and the negotiated features. A field a condition reads (flags, tx) decides the layout: its wrong type is
 * refused at once.
 * @param {Condition | undefined} when @param {Record<string, any>} f @param {Set<string>} features
 */
function holds(when, f, features) {
  if (when === undefined) return true;
  if (when.flags !== undefined) {
    if (f.flags?.type !== "int") throw fieldType(`flags decides which fields follow and is ${JSON.stringify(f.flags)}, not an int`);
    return (BigInt(f.flags.value) & BigInt(when.flags.mask)) === BigInt(when.flags.equals);
  }
  if (when.nil !== undefined) return f[when.nil]?.type === "nil";
  if (when.feature !== undefined) return features.has(when.feature);
  if (when.not_nil_or_zero !== undefined) {
    const v = f[when.not_nil_or_zero]; // a value of another type brings the field too (refused in turn)
    return v?.type !== "nil" && !(v?.type === "int" && String(v.value) === "0");
  }
  const form = /** @type {{feature: string, tx: number}} */ (when.tx_form);
  if (!features.has(form.feature)) return false;
  if (f.tx?.type !== "int" && f.tx?.type !== "nil") {
    throw fieldType(`tx decides which fields follow and is ${JSON.stringify(f.tx)}, not an int or nil`);
  }
  return f.tx.type === "int" && BigInt(f.tx.value) === BigInt(form.tx);
}

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

/** One field's value in the fields notation. @param {Cursor} c @param {string} name @param {string} type */
function read(c, name, type) {
  if (type.endsWith("?")) {
    if (c.peekNil(name)) return c.next(name);
    type = type.slice(0, -1);
  }
  switch (type) {
    case "features":
      return readFeatures(c, name);
    case "extensions":
      return readExtensions(c, name);
    case "uuid-list":
      return readUuidList(c, name);
    case "error":
      return readLayout(c, ERROR_OBJECT, new Set(), `${name}.`);
    case "payload":
      return c.rest();
    default:
      return c.of(name, type);
  }
}

/** The fields of a layout whose conditions hold, in order.
 * @param {Cursor} c @param {Field[]} layout @param {Set<string>} features @param {string} prefix */
function readLayout(c, layout, features, prefix = "") {
  /** @type {Record<string, any>} */
  const out = {};
  for (const f of layout) if (holds(f.when, out, features)) out[f.name] = read(c, prefix + f.name, f.type);
  return out;
}

// ---------------------------------------------------------------------------------------------- writing

const BIN32_MAX = 2 ** 32 - 1;
const LENGTH_MAX = 2 ** 31 - 1; // the 4-byte length is signed
const ERA_TYPES = new Set(["uuid", "bitmask"]);

/**
 * The typed values of one message, collected from `fields` in layout order. Errors come in the contract's
 * order: a missing or unknown field (frame.fields) before a field of the wrong type (frame.field-type) or an
 * int outside its range (unrepresentable), so the first of those is remembered and thrown by finish(), once every
 * field has been matched. A field a condition reads (flags, tx) is refused at once by holds().
 */
class Writer {
  /** @param {Set<string>} features */
  constructor(features) {
    this.features = features;
    /** @type {object[]} */
    this.values = [];
    /** @type {WireError | null} the first field of the wrong type or out of range */
    this.badValue = null;
  }

  /** @param {string} message */
  mistyped(message) {
    this.badValue ??= fieldType(message);
  }

  /** Append a typed value, which must be of `type` (or nil, when `nullable`): uuid and bitmask of era 3.0, an int
   * within the field's range (FR-INT-RANGE; a payload's values are not limited here).
   * @param {string} name @param {any} v @param {string} type @param {boolean} nullable */
  append(name, v, type, nullable) {
    const got = typeof v === "object" && v !== null ? v.type : undefined;
    if (nullable && got === "nil") this.values.push(v);
    else if (got !== wireType(type) || (ERA_TYPES.has(type) && v.era !== FRAME_ERA)) {
      this.mistyped(`${name} is ${JSON.stringify(v)}, not a ${type}${ERA_TYPES.has(type) ? ` of era ${FRAME_ERA}` : ""}${nullable ? " or nil" : ""}`);
    } else if (!inRange(type, v.value)) {
      this.badValue ??= new WireError("unrepresentable", `${name} is ${v.value}, outside the field's ${type} range`);
    } else this.values.push(v);
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

  /** One field's value as its type lays it out. @param {string} name @param {string} type @param {any} v */
  write(name, type, v) {
    const nullable = type.endsWith("?");
    if (nullable && v?.type === "nil") {
      this.values.push(v);
      return;
    }
    const base = nullable ? type.slice(0, -1) : type;
    switch (base) {
      case "features":
        return writeFeatures(this, name, v);
      case "extensions":
        return writeExtensions(this, name, v);
      case "uuid-list":
        return writeUuidList(this, name, v);
      case "error":
        return writeError(this, name, v);
      case "payload":
        return writePayload(this, name, v);
      default:
        return this.append(name, v, base, nullable);
    }
  }

  /** The fields of a layout whose conditions hold, taken from `given` in order; then the given fields the layout
   * has no place for (frame.fields). @param {Field[]} layout @param {Record<string, any>} given @param {string} prefix */
  writeLayout(layout, given, prefix = "") {
    /** @type {Set<string>} */
    const taken = new Set();
    for (const f of layout) {
      if (!holds(f.when, given, this.features)) continue;
      if (!Object.hasOwn(given, f.name)) throw fieldsError(`field ${prefix}${f.name} is missing`);
      taken.add(f.name);
      this.write(prefix + f.name, f.type, given[f.name]);
    }
    const unknown = Object.keys(given).filter((name) => !taken.has(name));
    if (unknown.length > 0) throw fieldsError(`no field ${unknown.map((n) => prefix + n).join(", ")} here`);
  }

  /** The values, once a remembered wrong type is thrown. */
  finish() {
    if (this.badValue !== null) throw this.badValue;
    return this.values;
  }
}

/** features: the set bit indices -> the minimal bin (no trailing zero bytes; none set = empty bin).
 * @param {Writer} w @param {string} name @param {any} bits */
function writeFeatures(w, name, bits) {
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
 * @param {Writer} w @param {string} name @param {any} pairs */
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

/** uuid-list: typed uuids -> count, then each. @param {Writer} w @param {string} name @param {any} uuids */
function writeUuidList(w, name, uuids) {
  if (!Array.isArray(uuids)) {
    w.mistyped(`${name} is not an array of uuids: ${JSON.stringify(uuids)}`);
    return;
  }
  w.count(uuids.length);
  uuids.forEach((u, i) => w.append(`${name}[${i}]`, u, "uuid", false));
}

/** error: the error object's fields (registry error_object). Not an object, or a typed value (no member of it is
 * called "type"): frame.field-type. @param {Writer} w @param {string} name @param {any} error */
function writeError(w, name, error) {
  if (typeof error !== "object" || error === null || Array.isArray(error) || Object.hasOwn(error, "type")) {
    w.mistyped(`${name} is not an error object: ${JSON.stringify(error)}`);
    return;
  }
  w.writeLayout(ERROR_OBJECT, error, `${name}.`);
}

/** payload: typed values, each written as it is. @param {Writer} w @param {string} name @param {any} payload */
function writePayload(w, name, payload) {
  if (!Array.isArray(payload)) w.mistyped(`${name} is not an array of typed values: ${JSON.stringify(payload)}`);
  else payload.forEach((v, i) => w.any(`${name}[${i}]`, v));
}

// ---------------------------------------------------------------------------------------------- the frame

/** @param {string} kind */
export const isKind = (kind) => LAYOUTS.has(kind);

/** @param {string} kind */
function kindOf(kind) {
  const k = LAYOUTS.get(kind);
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
  if (typeof fields !== "object" || fields === null || Array.isArray(fields)) throw fieldsError("fields is not a JSON object");
  const w = new Writer(new Set(features));
  w.writeLayout(k.fields, fields);
  const body = encodeAll(w.finish());
  if (body.length > LENGTH_MAX) throw new WireError("unrepresentable", `${body.length} bytes do not fit the 4-byte signed length`);
  const head = k.magic ? MAGIC.length : 0;
  const frame = new Uint8Array(head + 4 + body.length);
  frame.set(MAGIC.subarray(0, head));
  new DataView(frame.buffer).setInt32(head, body.length);
  frame.set(body, head + 4);
  return frame;
}

/**
 * The message in one frame, in the steps (and so the error classes) of spec.md 11.1.
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
  const fields = readLayout(c, k.fields, new Set(features));
  c.end(kind);
  const after = bytes.length - at - length;
  if (after > 0) throw new WireError("frame.trailing", `${after} bytes after the ${length}-byte frame`);
  return fields;
}

/** @param {string} message */
const truncated = (message) => new WireError("malformed.truncated", message);
/** @param {Uint8Array} bytes */
const hex = (bytes) => Buffer.from(bytes).toString("hex");
