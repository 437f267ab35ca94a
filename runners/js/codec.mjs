// Typed value notation (schema/value.schema.json) <-> MessagePack bytes, on @msgpack/msgpack.
//
// Decoding: the library's Decoder does the parsing (decodeMulti's loop, ExtensionCodec, mapKeyConverter). Where
// its result loses what the notation needs, a subclass overrides some of its (TypeScript-private) methods; those
// overrides and the four methods of decodeMulti's loop (see libraryValues) are the only coupling to the
// library's internals, checked at load time (see README):
//   readF32/readF64       the library returns a plain number for ca, cb and every int alike, and converting
//                         float32 -> double quiets signalling NaNs: return the raw bits instead.
//   decodeUtf8String      the library does not validate UTF-8 (<= 200 bytes: mis-decodes; longer: U+FFFD):
//                         validate the raw bytes with a fatal TextDecoder, then let the library decode.
//   pushArrayState/Map    where the library allocates `new Array(count)`: enforce the depth limit and check the
//                         declared count against the bytes that remain. An array's preallocated (holey)
//                         array is replaced by an empty one that the library appends to: a packed array,
//                         which JSON.stringify writes on its fast path (a holey one, element by element
//                         through a property lookup).
// Maps: the library would build a JS object (integer-like keys reorder, duplicates collapse). pushMapState puts
// a Pairs object in its place; the public mapKeyConverter hook appends each key to it and names Pairs' one
// setter, through which the library's `map[key] = value` appends the value: every entry, in wire order.
//
// Encoding is type-directed: each scalar is written by a library Encoder configured so its bytes are exact;
// container headers and NaN floats are written by hand (the library cannot express them, see README).
import { createRequire } from "node:module";
import { decodeIgnite, encodeIgnite, isIgniteType, layoutsOf, ERAS } from "./igniteExt.mjs";
import { WireError } from "./wireError.mjs";

/** @type {typeof import("@msgpack/msgpack")} (required, not imported: see runner.mjs) */
const { Decoder, DecodeError, Encoder, ExtData, ExtensionCodec } = createRequire(import.meta.url)("@msgpack/msgpack");

export const MAX_DEPTH = 512;

// ---------------------------------------------------------------------------------------------- decoding

// Floats and strs are returned by the overrides below already in typed notation ({type, bits} / {type, value}),
// as instances of classes of their own, so they cannot be mistaken for anything the library returns.

/** A ca value: the library would widen it to a double (and quiet a signalling NaN). */
class Float32Bits {
  /** @param {string} bits 8 hex digits */
  constructor(bits) { this.type = "float32"; this.bits = bits; }
}

/** A cb value, kept as bits so it cannot be mistaken for an int and NaN payloads survive. */
class Float64Bits {
  /** @param {string} bits 16 hex digits */
  constructor(bits) { this.type = "float64"; this.bits = bits; }
}

/** A str value. Wrapped so the library's map-key check ("__proto__" refused) never sees a bare string. */
class Str {
  /** @param {string} value */
  constructor(value) { this.type = "str"; this.value = value; }
}

/** A map as it is read: keys and values alternating, in wire order. */
class Pairs {
  /** @type {unknown[]} */
  items = [];

  /** The library stores each value as `map[PAIR_VALUE] = value`. @param {unknown} value */
  set v(value) {
    this.items.push(value);
  }
}
const PAIR_VALUE = "v";

/** A decoded Ignite ext: already in typed notation. */
class IgniteValue {
  /** @param {object} typed */
  constructor(typed) { this.typed = typed; }
}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

const OVERRIDDEN = ["readF32", "readF64", "decodeUtf8String", "pushArrayState", "pushMapState"];
const CALLED = ["reinitializeState", "setBuffer", "hasRemaining", "doDecodeSync"]; // decodeMulti's loop
for (const name of [...OVERRIDDEN, ...CALLED]) {
  // @ts-ignore -- indexing the class by name
  if (typeof Decoder.prototype[name] !== "function") {
    throw new Error(`@msgpack/msgpack has no Decoder.${name}: this runner is written against 3.1.3 (see README)`);
  }
}

// The members used and overridden below are TypeScript-private, so the subclass is deliberately untyped.
const LibraryDecoder = /** @type {new (options: import("@msgpack/msgpack").DecoderOptions<string>) => any} */ (Decoder);

class TypedDecoder extends LibraryDecoder {
  readF32() {
    const bits = this.view.getUint32(this.pos);
    this.pos += 4;
    return new Float32Bits(bits.toString(16).padStart(8, "0"));
  }

  readF64() {
    const bits = this.view.getBigUint64(this.pos);
    this.pos += 8;
    return new Float64Bits(bits.toString(16).padStart(16, "0"));
  }

  /** @param {number} byteLength @param {number} headerOffset */
  decodeUtf8String(byteLength, headerOffset) {
    const start = this.pos + headerOffset;
    const raw = this.bytes.subarray(start, start + byteLength);
    // A short `raw` means truncated input: the library reports that below.
    if (raw.length === byteLength) {
      try {
        utf8.decode(raw);
      } catch (e) {
        throw new WireError("invalid.utf8", `str at byte ${start} is not well-formed UTF-8: ${/** @type {Error} */ (e).message}`);
      }
    }
    return new Str(super.decodeUtf8String(byteLength, headerOffset));
  }

  /** @param {number} size */
  pushArrayState(size) {
    this.checkContainer(size, 1, "array");
    super.pushArrayState(size);
    this.stack.top().array = [];
  }

  /** @param {number} size */
  pushMapState(size) {
    this.checkContainer(size, 2, "map");
    super.pushMapState(size);
    this.stack.top().map = new Pairs();
  }

  /** @param {import("@msgpack/msgpack").DecoderOptions<string>} options */
  constructor(options) {
    super(options);
    // The library's hook for a map key, called as this.mapKeyConverter(key) with the map on top of the stack.
    this.mapKeyConverter = this.pairKey;
  }

  /** @param {unknown} key */
  pairKey(key) {
    this.stack.top().map.items.push(key);
    return PAIR_VALUE;
  }

  /** Before the library allocates: nesting depth, and at least 1 byte per element / 2 per entry must remain.
   * @param {number} size @param {number} bytesPerItem @param {string} what */
  checkContainer(size, bytesPerItem, what) {
    if (this.stack.length + 1 > MAX_DEPTH) throw new WireError("limit.depth", `${what} nested deeper than ${MAX_DEPTH}`);
    const remaining = this.view.byteLength - this.pos;
    if (size * bytesPerItem > remaining) {
      throw new WireError("malformed.truncated", `${what} of ${size} declared at byte ${this.pos}, only ${remaining} bytes remain`);
    }
  }
}

/**
 * One ExtensionCodec per era: Ignite codes of that era decode (and are validated) as Ignite types; every other
 * code stays a raw ExtData. The library's built-in timestamp decoder (-1 -> Date) is replaced by a raw one.
 * @type {Map<string, import("@msgpack/msgpack").ExtensionCodec<string>>}
 */
const codecByEra = new Map();
for (const era of ERAS) {
  /** @type {import("@msgpack/msgpack").ExtensionCodec<string>} */
  const codec = new ExtensionCodec();
  codec.register({ type: -1, encode: () => null, decode: (data, type) => new ExtData(type, data) });
  for (const [code, layout] of layoutsOf(era)) {
    codec.register({ type: code, encode: () => null, decode: (data, _type, reqEra) => new IgniteValue(decodeIgnite(layout, data, /** @type {string} */ (reqEra))) });
  }
  codecByEra.set(era, codec);
}

/**
 * Decode every top-level value in `bytes`.
 * @param {Uint8Array} bytes
 * @param {string} era
 * @returns {object[]} typed values
 */
export function decodeAll(bytes, era) {
  const values = decodeOrReject(bytes, era);
  if (values instanceof WireError) throw values;
  return values;
}

/**
 * decodeAll, but a rejection by the library is returned, not thrown: for the runner's msgpack decode, where
 * most of the corpus is must-reject input and a throw unwinding to the request's handler cost a walk through
 * every frame on the way. (A rejection found while converting, the depth of empty containers, is thrown.)
 * @param {Uint8Array} bytes
 * @param {string} era
 * @returns {object[] | WireError} typed values, or the library's rejection
 */
export function decodeOrReject(bytes, era) {
  const decoder = decoderByEra.get(era);
  if (decoder === undefined) throw new Error(`unknown era '${era}'`);
  // Public guards: no declared length can exceed the whole input (str/array/map are also checked above).
  decoder.maxStrLength = decoder.maxBinLength = decoder.maxExtLength = bytes.length;
  decoder.maxArrayLength = decoder.maxMapLength = bytes.length;
  const values = libraryValues(decoder, bytes);
  if (values instanceof WireError) return values;
  for (let i = 0; i < values.length; i++) values[i] = toTyped(values[i], 0);
  return values;
}

/**
 * The library's values, or its exception mapped to an error class. Short on purpose, without for-of: must-reject
 * input (most of the corpus) ends in an exception, and in a frame not optimised yet V8 finds the handler by
 * walking the function's code up to the throw. Caught in decodeAll, exceptions were 10% of the main thread's
 * perf samples (half of them that walk); caught here, 8%.
 * The loop is decodeMulti's body without its generator: the generator's try/finally caught and rethrew every
 * exception (a second unwind), and each value was a generator resumption. (decodeMulti's `entered` guard is
 * for a decode nested in another on the same decoder, which never happens here.)
 * @param {any} decoder @param {Uint8Array} bytes
 */
function libraryValues(decoder, bytes) {
  const decoded = [];
  try {
    // A clean state each time, also after a failed input.
    decoder.reinitializeState();
    decoder.setBuffer(bytes);
    while (decoder.hasRemaining(1)) decoded.push(decoder.doDecodeSync());
  } catch (e) {
    const rejection = classifyLibraryError(e);
    if (rejection instanceof WireError) return rejection;
    throw rejection;
  }
  return decoded;
}

/** One decoder per era, reused by every request (decodeAll never runs inside another decodeAll). */
const decoderByEra = new Map(ERAS.map((era) => [era, new TypedDecoder({
  extensionCodec: codecByEra.get(era),
  context: era,
  useBigInt64: true, // uint64 above 2^53 would come back as a rounded number otherwise
  keyDecoder: null,
})]));

/** Map the library's exceptions to error classes; anything unexpected is passed on as a runner bug.
 * @param {unknown} e */
function classifyLibraryError(e) {
  if (e instanceof WireError) return e;
  if (e instanceof RangeError) return new WireError("malformed.truncated", `library: ${e.message}`); // "Insufficient data", DataView bounds
  if (e instanceof DecodeError) {
    if (/^Unrecognized type byte/.test(e.message)) return new WireError("malformed.reserved", `library: ${e.message}`);
    if (/^Max length exceeded/.test(e.message)) return new WireError("malformed.truncated", `library: ${e.message}`);
  }
  return e;
}

const NIL = { type: "nil" };
const TRUE = { type: "bool", value: true };
const FALSE = { type: "bool", value: false };

/**
 * The library's result -> typed notation. Answers may share the nil and bool objects (they are only written).
 * @param {unknown} v @param {number} depth containers around v
 * @returns {object}
 */
function toTyped(v, depth) {
  if (v === null) return NIL;
  if (typeof v === "number" || typeof v === "bigint") return { type: "int", value: v.toString() }; // floats are Float*Bits
  if (typeof v === "boolean") return v ? TRUE : FALSE;
  if (v instanceof Str || v instanceof Float32Bits || v instanceof Float64Bits) return v;
  if (v instanceof Uint8Array) return { type: "bin", hex: toHex(v) };
  if (v instanceof IgniteValue) return v.typed;
  if (v instanceof ExtData) return { type: "ext", code: v.type, hex: toHex(/** @type {Uint8Array} */ (v.data)) };
  // Empty containers never reach pushArrayState/pushMapState, so the depth limit is checked here as well.
  if (depth + 1 > MAX_DEPTH) throw new WireError("limit.depth", `container nested deeper than ${MAX_DEPTH}`);
  if (Array.isArray(v)) {
    // Converted in place: the library's array is this decode's own, and a large one is a large allocation.
    for (let i = 0; i < v.length; i++) v[i] = toTyped(v[i], depth + 1);
    return { type: "array", items: v };
  }
  if (v instanceof Pairs) {
    const kv = v.items;
    const entries = []; // filled by push, so packed (see pushArrayState)
    for (let i = 0; i < kv.length; i += 2) entries.push([toTyped(kv[i], depth + 1), toTyped(kv[i + 1], depth + 1)]);
    return { type: "map", entries };
  }
  // An empty map never reaches pushMapState: the library returns a fresh {}.
  if (typeof v === "object" && Object.getPrototypeOf(v) === Object.prototype && Object.keys(v).length === 0) {
    return { type: "map", entries: [] };
  }
  throw new Error(`unexpected value from the library: ${Object.prototype.toString.call(v)}`);
}

/** @param {Uint8Array} bytes */
export const toHex = (bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");

// ---------------------------------------------------------------------------------------------- encoding

// Each Encoder writes one kind of scalar exactly (library-behaviour.md, "@msgpack/msgpack" row):
const plain = new Encoder(); // nil, bool, safe integers (smallest form), str, bin, ext
const NIL_BYTES = plain.encode(null); // the library's nil, once (the large vectors hold 10^5 of them)
const wideInt = new Encoder({ useBigInt64: true }); // bigint -> always cf/d3 + 8 bytes: used only beyond 2^53
const float64 = new Encoder({ forceIntegerToFloat: true }); // else 1.0 -> 01, -0.0 -> 00
const float32 = new Encoder({ forceIntegerToFloat: true, forceFloat32: true });

const UINT64_MAX = 2n ** 64n - 1n;
// In a /u pattern a surrogate class matches only surrogates that are not part of a pair.
const LONE_SURROGATE = /[\ud800-\udfff]/u;
const INT64_MIN = -(2n ** 63n);
const SHORT_INT = /^-?(0|[1-9][0-9]{0,14})$/;

/**
 * Encode the values, in order, as one byte string.
 * @param {any[]} values typed values
 * @returns {Uint8Array}
 */
export function encodeAll(values) {
  const out = new ByteSink();
  for (const v of values) encodeValue(v, out);
  return out.result();
}

/** The encoded pieces, copied into one growing buffer as they come: a large container is one buffer, not an
 * array of a piece per element to concatenate at the end. */
class ByteSink {
  bytes = new Uint8Array(256);
  length = 0;

  /** @param {Uint8Array} piece (copied: it is often an encoder's shared buffer, see encodeSharedRef) */
  push(piece) {
    const end = this.length + piece.length;
    if (end > this.bytes.length) {
      const grown = new Uint8Array(Math.max(end, 2 * this.bytes.length));
      grown.set(this.bytes.subarray(0, this.length));
      this.bytes = grown;
    }
    this.bytes.set(piece, this.length);
    this.length = end;
  }

  result() {
    return this.bytes.slice(0, this.length);
  }
}

/** @param {any} v typed value @param {ByteSink} out */
function encodeValue(v, out) {
  switch (v.type) {
    case "nil":
      out.push(NIL_BYTES);
      return;
    case "bool":
      out.push(plain.encodeSharedRef(v.value));
      return;
    case "int": {
      // Up to 15 digits is a safe integer: the library writes its smallest form (what the BigInt path below
      // would pick too), without a BigInt parse per value.
      if (SHORT_INT.test(v.value)) {
        out.push(plain.encodeSharedRef(Number(v.value)));
        return;
      }
      const n = BigInt(v.value);
      if (n < INT64_MIN || n > UINT64_MAX) throw new WireError("unrepresentable", `int ${n} outside int64/uint64`);
      // The bigint path always writes 9 bytes, which is the smallest form only beyond 2^32 (so beyond 2^53 too).
      out.push(Number.isSafeInteger(Number(n)) ? plain.encodeSharedRef(Number(n)) : wideInt.encodeSharedRef(n));
      return;
    }
    case "float32":
      out.push(encodeFloat(v.bits, 4, float32));
      return;
    case "float64":
      out.push(encodeFloat(v.bits, 8, float64));
      return;
    case "str":
      // A lone surrogate would be written as invalid UTF-8 (the library encodes it as a 3-byte sequence).
      if (LONE_SURROGATE.test(v.value)) throw new WireError("unrepresentable", "str contains an unpaired surrogate");
      out.push(plain.encodeSharedRef(v.value));
      return;
    case "bin":
      out.push(plain.encodeSharedRef(fromHex(v.hex)));
      return;
    case "array":
      out.push(containerHeader(v.items.length, 0x90, 0xdc));
      for (const item of v.items) encodeValue(item, out);
      return;
    case "map":
      out.push(containerHeader(v.entries.length, 0x80, 0xde));
      // Not `for (const [key, value] of ...)`: destructuring made an array iterator per entry.
      for (const entry of v.entries) {
        encodeValue(entry[0], out);
        encodeValue(entry[1], out);
      }
      return;
    case "ext":
      // The library writes the code with setInt8, which silently wraps codes outside -128..127.
      if (!Number.isInteger(v.code) || v.code < -128 || v.code > 127) throw new WireError("unrepresentable", `ext code ${v.code} outside -128..127`);
      out.push(plain.encodeSharedRef(new ExtData(v.code, fromHex(v.hex))));
      return;
    default: {
      if (!isIgniteType(v.type)) throw new Error(`unknown value type '${v.type}'`);
      const { code, payload } = encodeIgnite(v);
      out.push(plain.encodeSharedRef(new ExtData(code, payload)));
    }
  }
}

/**
 * A float of `width` bytes with exactly `bits`. Non-NaN values go through the library; NaNs are written by hand
 * because a JS number cannot be relied on to carry a NaN's payload (and float32 -> double quiets sNaNs).
 * @param {string} bits @param {4|8} width @param {import("@msgpack/msgpack").Encoder} encoder
 */
function encodeFloat(bits, width, encoder) {
  const raw = fromHex(bits);
  const view = new DataView(raw.buffer, raw.byteOffset, width);
  const value = width === 4 ? view.getFloat32(0) : view.getFloat64(0);
  if (Number.isNaN(value)) return Uint8Array.from([width === 4 ? 0xca : 0xcb, ...raw]);
  return encoder.encodeSharedRef(value);
}

/** The library has no header-only writer: fix (16 entries), 16-bit or 32-bit count.
 * @param {number} count @param {number} fixBase @param {number} head16 (head32 = head16 + 1) */
function containerHeader(count, fixBase, head16) {
  if (count < 16) return Uint8Array.of(fixBase + count);
  const wide = count > 0xffff;
  const header = new Uint8Array(wide ? 5 : 3);
  const view = new DataView(header.buffer);
  header[0] = wide ? head16 + 1 : head16;
  if (wide) view.setUint32(1, count);
  else view.setUint16(1, count);
  return header;
}

/** @param {string} hex */
export function fromHex(hex) {
  checkHex(hex);
  // Callers get a Uint8Array of their own (binaryTuple reverses copies made with slice(), which on a Buffer
  // would be a view). A small Buffer.from lives in Node's shared pool and is copied out; a large one owns its
  // ArrayBuffer, which is taken over without a copy.
  const b = Buffer.from(hex, "hex");
  return b.byteOffset === 0 && b.buffer.byteLength === b.length ? new Uint8Array(b.buffer) : new Uint8Array(b);
}
const NOT_HEX = /[^0-9a-f]/;

/** @param {string} hex */
function checkHex(hex) {
  if (hex.length % 2 !== 0 || NOT_HEX.test(hex)) throw new TypeError(`not lower-case hex: ${hex.slice(0, 40)}`);
}

/**
 * The bytes of `hex` in memory that the next call reuses: for a request's input, which is decoded at once and
 * not kept (a fresh buffer per large request costs more in page faults than decoding it). A plain
 * Uint8Array, so slice() copies as it does for fromHex's result.
 * @param {string} hex
 */
export function fromHexReused(hex) {
  checkHex(hex);
  if (hex.length / 2 > reused.length) reused = Buffer.allocUnsafeSlow(Math.max(hex.length / 2, 2 * reused.length));
  return new Uint8Array(reused.buffer, reused.byteOffset, reused.write(hex, "hex"));
}
let reused = Buffer.allocUnsafeSlow(1 << 16);
