// Binary Tuple (IEP-92) codec: spec.md 6.2. Elements are ColumnType-typed values ({"type": "INT32", ...}).
//
// Mirrors runners/python/binary_tuple.py:
//   readTuple / writeTuple          header, offset table, value area (era 3.0; beta1 adds the null map)
//   decodeElement / encodeElement   one element per ColumnType
//   decode / encode                 the formats binary-tuple, object, object-array, batched-arguments, table-row, collection,
//                                   compute-arg; the MessagePack
//                                   around a tuple (c0, bin, int N, the no-value BITMASK) goes through codec.mjs
// No library implements Binary Tuples, so this is by hand: 64-bit integers and DECIMAL unscaled values are
// BigInt, floats are handled as bits through DataView. Everything in a tuple is little-endian except the
// DECIMAL unscaled value (big-endian two's complement).
import { decodeAll, encodeAll, fromHex, toHex } from "./codec.mjs";
import { WireError } from "./wireError.mjs";

// ColumnType ids on the 3.0 wire (14 and 19 are not value types there).
/** @type {Record<string, number>} */
const TYPE_IDS = {
  NULL: 0, BOOLEAN: 1, INT8: 2, INT16: 3, INT32: 4, INT64: 5, FLOAT: 6, DOUBLE: 7, DECIMAL: 8, DATE: 9, TIME: 10,
  DATETIME: 11, TIMESTAMP: 12, UUID: 13, STRING: 15, BYTE_ARRAY: 16, PERIOD: 17, DURATION: 18,
};
const TYPE_NAMES = new Map(Object.entries(TYPE_IDS).filter(([, id]) => id !== 0).map(([name, id]) => [id, name]));
/** @type {Record<string, number[]>} */
const INT_WIDTHS = { INT8: [1], INT16: [1, 2], INT32: [1, 2, 4], INT64: [1, 2, 4, 8] };
/** length -> [fraction bits, nanos per unit] */
const TIME_FORMS = new Map([[4, [10, 1_000_000]], [5, [20, 1000]], [6, [30, 1]]]);
const INSTANT_SECONDS = [-31557014167219200n, 31556889864403199n];
const NANO_MAX = 999_999_999;
const EMPTY = 0x80; // varlen marker byte
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const LONE_SURROGATE = /[\ud800-\udfff]/u;
// An object's scale element may ask for any int32 scale; beyond this many digits the runner declines (skipped).
const MAX_RESCALED_DIGITS = 100_000;

/** A request this runner cannot perform (answered "skipped", not an error class: spec 7). */
export class NotPerformed extends Error {}

/** @param {boolean} ok @param {string} errorClass @param {string} message */
function check(ok, errorClass, message) {
  if (!ok) throw new WireError(errorClass, message);
}

/** @param {bigint} n @param {number} size bytes */
const fits = (n, size) => BigInt.asIntN(8 * size, n) === n;

/** @param {number} y @param {number} m */
function daysInMonth(y, m) {
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1];
}

/** Little-endian unsigned. @param {Uint8Array} b */
const unsignedLE = (b) => (b.length ? BigInt("0x" + toHex(b.slice().reverse())) : 0n);
/** Little-endian two's complement. @param {Uint8Array} b */
const signedLE = (b) => BigInt.asIntN(8 * b.length, unsignedLE(b));
/** Big-endian two's complement (DECIMAL unscaled). @param {Uint8Array} b */
const signedBE = (b) => BigInt.asIntN(8 * b.length, BigInt("0x" + toHex(b)));

/** @param {bigint} n @param {number} size */
function toLE(n, size) {
  const out = new Uint8Array(size);
  let u = BigInt.asUintN(8 * size, n);
  for (let i = 0; i < size; i++, u >>= 8n) out[i] = Number(u & 0xffn);
  return out;
}

/** Minimal big-endian two's complement (BigInteger.toByteArray). @param {bigint} n */
function minimalBE(n) {
  const size = Math.floor((n < 0n ? ~n : n).toString(2).length / 8) + 1; // 0 and -1 give 1 byte
  return fromHex(BigInt.asUintN(8 * size, n).toString(16).padStart(2 * size, "0"));
}

/** @param {Uint8Array[]} parts */
const concat = (parts) => Uint8Array.from(Buffer.concat(parts));

// -------------------------------------------------------------------------------------------- the tuple

/**
 * The n element byte strings (empty for a zero-length element) and, for beta1, the set of NULL indices.
 * @param {Uint8Array} data @param {number} n @param {string} era
 * @returns {{parts: Uint8Array[], nulls: Set<number>}}
 */
export function readTuple(data, n, era) {
  check(data.length >= 1, "malformed.truncated", "no header byte");
  const flags = data[0];
  const reserved = era === "beta1" ? 0xf8 : 0xfc; // beta1: bit 2 is the null-map flag
  check((flags & reserved) === 0, "malformed.tuple-header", `reserved header bits ${(flags & reserved).toString(16)}`);
  check((flags & 3) !== 3, "malformed.tuple-header", "8-byte offset entries do not exist");
  const size = 1 << (flags & 3);
  const nullmap = flags & 4 ? Math.ceil(n / 8) : 0;
  const base = 1 + nullmap + n * size; // checked before anything is allocated from n
  check(base <= data.length, "malformed.truncated", `header and offset table need ${base} bytes, ${data.length} given`);
  const nulls = new Set();
  for (let i = 0; nullmap && i < n; i++) if ((data[1 + (i >> 3)] >> (i & 7)) & 1) nulls.add(i);
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const parts = [];
  let start = 0;
  for (let i = 0; i < n; i++) {
    const at = 1 + nullmap + i * size;
    const end = size === 1 ? data[at] : size === 2 ? view.getUint16(at, true) : view.getUint32(at, true);
    check(end >= start, "malformed.tuple-offsets", `element ${i} ends at ${end}, before its start ${start}`);
    check(base + end <= data.length, "malformed.tuple-offsets", `element ${i} ends at ${base + end}, past the input (${data.length})`);
    parts.push(data.subarray(base + start, base + end));
    start = end;
  }
  // Strict: the input is exactly one tuple (spec BT-TRAILING leaves this to the implementation).
  check(base + start === data.length, "malformed.tuple-offsets", `${data.length - base - start} bytes after the last element`);
  return { parts, nulls };
}

/**
 * Header, (beta1: null map,) end offsets in the smallest entry size for the value area, values.
 * @param {Uint8Array[]} parts @param {number[] | null} [nulls]
 */
export function writeTuple(parts, nulls = null) {
  const area = concat(parts);
  const size = area.length <= 0xff ? 1 : area.length <= 0xffff ? 2 : 4;
  const head = [Uint8Array.of((size >> 1) | (nulls?.length ? 4 : 0))]; // 1, 2, 4 -> 0, 1, 2
  if (nulls?.length) {
    const mask = new Uint8Array(Math.ceil(parts.length / 8));
    for (const i of nulls) mask[i >> 3] |= 1 << (i & 7);
    head.push(mask);
  }
  let end = 0;
  const ends = parts.map((p) => toLE(BigInt((end += p.length)), size));
  return concat([...head, ...ends, area]);
}

// ------------------------------------------------------------------------------------ elements: decode

/** @param {string} t @param {Uint8Array} b @param {boolean} ok */
function need(t, b, ok) {
  check(ok, "invalid.tuple-length", `${t} element of ${b.length} bytes`);
}

/** @param {Uint8Array} b 4, 5 or 6 bytes */
function decodeTime(b) {
  const [bits, unit] = /** @type {number[]} */ (TIME_FORMS.get(b.length));
  const x = unsignedLE(b);
  const frac = Number(x & ((1n << BigInt(bits)) - 1n));
  const hms = Number(x >> BigInt(bits));
  const s = hms & 63, mi = (hms >> 6) & 63, h = (hms >> 12) & 31, rest = hms >> 17;
  // Strict on the unused top bits (spec BT-TIME-PADDING leaves them to the implementation; Java ignores them).
  check(rest === 0, "invalid.tuple-value", "unused TIME bits set");
  check(h <= 23 && mi <= 59 && s <= 59 && frac * unit <= NANO_MAX, "invalid.tuple-value", `no time ${h}:${mi}:${s} + ${frac} x ${unit} ns`);
  return { hour: h, minute: mi, second: s, nano: frac * unit };
}

/** @param {Uint8Array} b 3 bytes */
function decodeDate(b) {
  const d = ((b[0] | (b[1] << 8) | (b[2] << 16)) << 8) >> 8; // the 24-bit value, year sign-extended from bit 23
  const y = d >> 9, m = (d >> 5) & 15, day = d & 31;
  check(m >= 1 && m <= 12 && day >= 1 && day <= daysInMonth(y, m), "invalid.tuple-value", `no date ${y}-${m}-${day}`);
  return { year: y, month: m, day };
}

/** @param {string} t @param {Uint8Array} b */
function secondsNanos(t, b) {
  need(t, b, b.length === 8 || b.length === 12);
  // any int32 nanos, normalised as Java's Instant.ofEpochSecond / Duration.ofSeconds do (spec BT-TIMESTAMP, BT-DURATION)
  const total = signedLE(b.subarray(0, 8)) * 1000000000n + (b.length === 12 ? signedLE(b.subarray(8)) : 0n);
  let seconds = total / 1000000000n, nano = total % 1000000000n;
  if (nano < 0n) { nano += 1000000000n; seconds -= 1n; }
  if (t === "TIMESTAMP") {
    check(seconds >= INSTANT_SECONDS[0] && seconds <= INSTANT_SECONDS[1], "invalid.tuple-value", `seconds ${seconds} outside Instant`);
  }
  check(seconds >= -(2n ** 63n) && seconds < 2n ** 63n, "invalid.tuple-value", `seconds ${seconds} outside int64`);
  return { seconds: seconds.toString(), nano: Number(nano) };
}

/** Strip exactly one leading 80. @param {Uint8Array} b */
const decodeVarlen = (b) => (b[0] === EMPTY ? b.subarray(1) : b);

/** float32 bits -> float64 bits of the same value. A NaN keeps sign and payload and is quieted, as IEEE 754
 * conversion (Java's (double) f, Python's struct) does; no vector pins this (a NaN DOUBLE is never 4 bytes).
 * @param {Uint8Array} b 4 bytes LE */
function widenFloat32(b) {
  const f = new DataView(b.buffer, b.byteOffset, 4);
  const out = new DataView(new ArrayBuffer(8));
  const x = f.getFloat32(0, true);
  if (Number.isNaN(x)) {
    const bits = BigInt(f.getUint32(0, true));
    out.setBigUint64(0, ((bits >> 31n) << 63n) | (0xfffn << 51n) | ((bits & 0x7fffffn) << 29n));
  } else {
    out.setFloat64(0, x); // every non-NaN float32 is exactly a double
  }
  return toHex(new Uint8Array(out.buffer));
}

/**
 * The typed value fields of a non-empty element of column type t.
 * @param {string} t @param {Uint8Array} b @param {string} [era]
 * @returns {Record<string, unknown>}
 */
export function decodeElement(t, b, era = "3.0") {
  switch (t) {
    case "BOOLEAN":
      need(t, b, b.length === 1);
      check(b[0] <= 1, "invalid.tuple-value", `BOOLEAN byte ${b[0].toString(16)}`); // BT-BOOLEAN-OTHER: strict
      return { value: b[0] === 1 };
    case "INT8": case "INT16": case "INT32": case "INT64":
      need(t, b, INT_WIDTHS[t].includes(b.length));
      return { value: signedLE(b).toString() };
    case "FLOAT":
      need(t, b, b.length === 4);
      return { bits: toHex(b.slice().reverse()) };
    case "DOUBLE":
      need(t, b, b.length === 4 || b.length === 8);
      return { bits: b.length === 4 ? widenFloat32(b) : toHex(b.slice().reverse()) };
    case "DECIMAL":
      need(t, b, b.length >= 3);
      return { unscaled: signedBE(b.subarray(2)).toString(), scale: Number(signedLE(b.subarray(0, 2))) };
    case "DATE":
      need(t, b, b.length === 3);
      return decodeDate(b);
    case "TIME":
      need(t, b, TIME_FORMS.has(b.length));
      return decodeTime(b);
    case "DATETIME":
      need(t, b, TIME_FORMS.has(b.length - 3));
      return { ...decodeDate(b.subarray(0, 3)), ...decodeTime(b.subarray(3)) };
    case "TIMESTAMP": case "DURATION":
      return secondsNanos(t, b);
    case "UUID": {
      need(t, b, b.length === 16);
      const h = toHex(concat([b.slice(0, 8).reverse(), b.slice(8).reverse()]));
      return { value: `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}` };
    }
    case "STRING": {
      const raw = era === "beta1" ? b : decodeVarlen(b);
      try {
        return { value: utf8.decode(raw) };
      } catch (e) {
        throw new WireError("invalid.utf8", `STRING element: ${/** @type {Error} */ (e).message}`);
      }
    }
    case "BYTE_ARRAY":
      return { hex: toHex(era === "beta1" ? b : decodeVarlen(b)) };
    case "PERIOD": {
      need(t, b, [3, 6, 12].includes(b.length));
      const k = b.length / 3;
      const [years, months, days] = [0, 1, 2].map((i) => Number(signedLE(b.subarray(i * k, (i + 1) * k))));
      return { years, months, days };
    }
    case "NUMBER": // a beta1-only column type (spec 6.2.8): BigInteger, big-endian two's complement
      check(era === "beta1", "invalid.tuple-type", "NUMBER is not a 3.0 column type");
      return { value: signedBE(b).toString() };
    default:
      throw new WireError("invalid.tuple-type", `no column type '${t}'`);
  }
}

/** @type {Record<string, Record<string, unknown>>} */
const BETA1_DEFAULTS = {
  BOOLEAN: { value: false }, FLOAT: { bits: "00000000" }, DOUBLE: { bits: "0000000000000000" },
  STRING: { value: "" }, BYTE_ARRAY: { hex: "" }, INT8: { value: "0" }, INT16: { value: "0" }, INT32: { value: "0" }, INT64: { value: "0" },
  // zero length by value (nil UUID) or because java.time returns its constants for zero (spec 6.2.8)
  UUID: { value: "00000000-0000-0000-0000-000000000000" }, TIME: { hour: 0, minute: 0, second: 0, nano: 0 },
  TIMESTAMP: { seconds: "0", nano: 0 }, DURATION: { seconds: "0", nano: 0 }, PERIOD: { years: 0, months: 0, days: 0 },
  NUMBER: { value: "0" }, // zero by value (appendNumberNotNull)
  // the reader's DEFAULT_DATE and DEFAULT_DATE_TIME (spec BT-BETA1)
  DATE: { year: 0, month: 1, day: 1 },
  DATETIME: { year: 0, month: 1, day: 1, hour: 0, minute: 0, second: 0, nano: 0 },
};

/** @param {string} t @param {Uint8Array} b @param {string} era @param {boolean} [isNull] */
function decodeColumn(t, b, era, isNull = false) {
  if (era === "beta1") {
    if (isNull) return { type: "NULL" };
    // the unscaled value only; its scale is the column's, not in the vector (spec BT-BETA1)
    if (t === "DECIMAL") throw new NotPerformed("beta1 DECIMAL is not modelled (spec 6.2.8)");
    if (b.length === 0) { // a zero-length element of a non-NULL column: the type's default
      check(t in BETA1_DEFAULTS, "invalid.tuple-length", `no beta1 default for ${t}`);
      return { type: t, ...BETA1_DEFAULTS[t] };
    }
  } else if (b.length === 0) {
    return { type: "NULL" };
  }
  return { type: t, ...decodeElement(t, b, era) };
}

// ------------------------------------------------------------------------------------ elements: encode

/** @param {string} t @param {bigint} n */
function encodeInt(t, n) {
  const size = INT_WIDTHS[t].find((s) => fits(n, s));
  check(size !== undefined, "unrepresentable", `${n} does not fit ${t}`);
  return toLE(n, /** @type {number} */ (size));
}

/** x == (double)(float)x: written as binary32, else binary64 (NaN != NaN, so never narrowed). @param {string} bits */
function encodeDouble(bits) {
  const raw = fromHex(bits);
  const x = new DataView(raw.buffer).getFloat64(0);
  if (Math.fround(x) !== x) return raw.reverse();
  const out = new Uint8Array(4);
  new DataView(out.buffer).setFloat32(0, x, true); // exact, -0.0 keeps its sign
  return out;
}

/** @param {any} v */
function encodeDate(v) {
  const { year: y, month: m, day: d } = v;
  check(m >= 1 && m <= 12 && d >= 1 && d <= daysInMonth(y, m), "invalid.tuple-value", `no date ${y}-${m}-${d}`);
  check(y >= -16384 && y <= 16383, "unrepresentable", `year ${y} does not fit 15 bits`);
  return toLE(BigInt((y << 9) | (m << 5) | d), 3);
}

/** @param {any} v */
function encodeTime(v) {
  const { hour: h, minute: mi, second: s, nano: n } = v;
  check([h, mi, s, n].every(Number.isInteger) && h >= 0 && h <= 23 && mi >= 0 && mi <= 59 && s >= 0 && s <= 59 && n >= 0 && n <= NANO_MAX,
    "invalid.tuple-value", `no time ${h}:${mi}:${s}.${n}`);
  const size = n % 1000 ? 6 : n % 1_000_000 ? 5 : 4;
  const [bits, unit] = /** @type {number[]} */ (TIME_FORMS.get(size));
  return toLE((BigInt((h << 12) | (mi << 6) | s) << BigInt(bits)) | BigInt(n / unit), size);
}

/** @param {any} v */
function encodeSecondsNanos(v) {
  const seconds = BigInt(v.seconds), nano = v.nano;
  check(Number.isInteger(nano) && nano >= 0 && nano <= NANO_MAX, "invalid.tuple-value", `nano ${nano}`);
  if (v.type === "TIMESTAMP") {
    check(seconds >= INSTANT_SECONDS[0] && seconds <= INSTANT_SECONDS[1], "invalid.tuple-value", `seconds ${seconds}`);
  }
  check(fits(seconds, 8), "unrepresentable", `seconds ${seconds} outside int64`);
  return concat([toLE(seconds, 8), ...(nano ? [toLE(BigInt(nano), 4)] : [])]);
}

/** @param {bigint} unscaled @param {number} scale */
function encodeDecimal(unscaled, scale) {
  check(fits(BigInt(scale), 2), "unrepresentable", `scale ${scale} outside int16`);
  return concat([toLE(BigInt(scale), 2), minimalBE(unscaled)]);
}

/** @param {Uint8Array} data */
const encodeVarlen = (data) => (data.length === 0 || data[0] === EMPTY ? concat([Uint8Array.of(EMPTY), data]) : data);

/** @param {string} text */
function utf8Bytes(text) {
  // TextEncoder would silently write U+FFFD for an unpaired surrogate.
  check(!LONE_SURROGATE.test(text), "unrepresentable", "STRING contains an unpaired surrogate");
  return new TextEncoder().encode(text);
}

/**
 * @param {any} v typed element @param {string} [era]
 * @returns {Uint8Array}
 */
export function encodeElement(v, era = "3.0") {
  const t = v.type;
  if (t === "NULL" || t === "NO_VALUE") return new Uint8Array(0);
  if (era === "beta1") return encodeElementBeta1(v);
  switch (t) {
    case "BOOLEAN":
      return Uint8Array.of(v.value ? 1 : 0);
    case "INT8": case "INT16": case "INT32": case "INT64":
      return encodeInt(t, BigInt(v.value));
    case "FLOAT":
      return fromHex(v.bits).reverse();
    case "DOUBLE":
      return encodeDouble(v.bits);
    case "DECIMAL":
      return encodeDecimal(BigInt(v.unscaled), v.scale);
    case "DATE":
      return encodeDate(v);
    case "TIME":
      return encodeTime(v);
    case "DATETIME":
      return concat([encodeDate(v), encodeTime(v)]);
    case "TIMESTAMP": case "DURATION":
      return encodeSecondsNanos(v);
    case "UUID": {
      const raw = fromHex(v.value.replaceAll("-", ""));
      return concat([raw.slice(0, 8).reverse(), raw.slice(8).reverse()]);
    }
    case "STRING":
      return encodeVarlen(utf8Bytes(v.value));
    case "BYTE_ARRAY":
      return encodeVarlen(fromHex(v.hex));
    case "PERIOD": {
      const fields = [v.years, v.months, v.days].map(BigInt);
      const size = [1, 2, 4].find((s) => fields.every((f) => fits(f, s)));
      check(size !== undefined, "unrepresentable", `period ${fields} outside int32`);
      return concat(fields.map((f) => toLE(f, /** @type {number} */ (size))));
    }
    default:
      throw new WireError("invalid.tuple-type", `no element type '${t}'`);
  }
}

/** BT-1: defaults (0, 0.0, false, empty) are zero-length; no 80 marker. @param {any} v */
function encodeElementBeta1(v) {
  const t = v.type;
  if (t === "STRING") return utf8Bytes(v.value);
  if (t === "BYTE_ARRAY") return fromHex(v.hex);
  const defaults = BETA1_DEFAULTS[t];
  if (defaults === undefined) throw new NotPerformed(`beta1 ${t} is not modelled (spec 6.2.8)`);
  if (Object.entries(defaults).every(([k, d]) => v[k] === d)) return new Uint8Array(0);
  if (t === "NUMBER") return minimalBE(BigInt(v.value)); // BigInteger.toByteArray
  return encodeElement(v);
}

// -------------------------------------------------------------------------------------------- triples

/** Java BigDecimal.stripTrailingZeros(); zero becomes (0, 0). @param {bigint} unscaled @param {number} scale
 * @returns {[bigint, number]} */
function stripped(unscaled, scale) {
  if (unscaled === 0n) return [0n, 0];
  while (unscaled % 10n === 0n) [unscaled, scale] = [unscaled / 10n, scale - 1];
  return [unscaled, scale];
}

/** The (type, scale, value) elements of an object. @param {any} v @returns {Uint8Array[]} */
function triple(v) {
  const t = v.type;
  if (t === "NULL") return [new Uint8Array(0), new Uint8Array(0), new Uint8Array(0)];
  check(t in TYPE_IDS, "invalid.tuple-type", `no object type '${t}'`);
  let scale = 0;
  let value;
  if (t === "DECIMAL") {
    const unscaled = BigInt(v.unscaled);
    scale = v.scale;
    check(Number.isInteger(scale) && fits(BigInt(scale), 4), "unrepresentable", `scale ${scale} outside int32`);
    const [su, ss] = stripped(unscaled, scale); // the java producer profile (canonical): shrinkDecimal
    value = fits(BigInt(ss), 2) ? encodeDecimal(su, ss) : encodeDecimal(unscaled, scale);
  } else {
    value = encodeElement(v);
  }
  return [encodeInt("INT32", BigInt(TYPE_IDS[t])), encodeInt("INT32", BigInt(scale)), value];
}

/** @param {Uint8Array[]} parts the three elements of one object */
function readTriple([typeB, scaleB, valueB]) {
  if (typeB.length === 0) return { type: "NULL" };
  const typeId = Number(decodeElement("INT32", typeB).value);
  const t = TYPE_NAMES.get(typeId);
  check(t !== undefined, "invalid.tuple-type", `type id ${typeId} is not a 3.0 value type`);
  const name = /** @type {string} */ (t);
  check(valueB.length > 0, "invalid.tuple-length", `${name} object without a value`);
  const fields = decodeElement(name, valueB);
  if (name !== "DECIMAL") return { type: name, ...fields };
  // The value at the scale of the scale element, rescaled exactly (Java: setScale(scale, UNNECESSARY)).
  // Java reads the scale with intValue, which refuses a zero-length element (spec BT-OBJECT-DECIMAL-SCALE).
  check(scaleB.length > 0, "invalid.tuple-length", "DECIMAL object with a NULL scale element");
  const want = Number(decodeElement("INT32", scaleB).value);
  return { type: name, unscaled: rescaled(BigInt(/** @type {string} */ (fields.unscaled)), /** @type {number} */ (fields.scale), want).toString(), scale: want };
}

/**
 * unscaled * 10^(want - scale), exactly. The scale element is any int32, so the power is never computed
 * blindly: 10n ** 2^28 alone takes minutes.
 * @param {bigint} unscaled @param {number} scale @param {number} want
 */
function rescaled(unscaled, scale, want) {
  if (unscaled === 0n) return 0n;
  const digits = (unscaled < 0n ? -unscaled : unscaled).toString().length;
  if (scale > want) {
    // Dividing by more digits than the value has cannot be exact.
    const exact = scale - want <= digits && unscaled % 10n ** BigInt(scale - want) === 0n;
    check(exact, "invalid.tuple-value", `(${unscaled}, ${scale}) does not rescale exactly to scale ${want}`);
    return unscaled / 10n ** BigInt(scale - want);
  }
  if (digits + want - scale > MAX_RESCALED_DIGITS) {
    throw new NotPerformed(`DECIMAL rescaled to scale ${want} would have ${digits + want - scale} digits (this runner's limit: ${MAX_RESCALED_DIGITS})`);
  }
  return unscaled * 10n ** BigInt(want - scale);
}

// -------------------------------------------------------------------------------------------- formats

/** @param {any} value typed MessagePack value @param {string} what */
function binOf(value, what) {
  check(value?.type === "bin", "invalid.tuple-type", `${what}: expected a bin, got ${value?.type}`);
  return fromHex(value.hex);
}

/** The bin that must follow the first MessagePack value of a collection or compute argument, alone.
 * @param {any[]} outer @param {string} what */
function oneBinAfter(outer, what) {
  check(outer.length === 2, "invalid.tuple-type", `${what}: expected one bin after the first value, got ${outer.length - 1} values`);
  return binOf(outer[1], what);
}

/** Spec 6.3: element count n, then the tuple of type id, count, items. @param {number} n @param {any[]} outer @param {string} era */
function readCollection(n, outer, era) {
  check(n >= 2, "invalid.tuple-type", `collection element count ${n} is below 2`);
  check(outer.length > 1, "malformed.truncated", "collection: the input ends where the bin belongs");
  const { parts } = readTuple(oneBinAfter(outer, "collection"), n, era);
  const typeId = Number(decodeElement("INT32", parts[0]).value);
  const count = Number(decodeElement("INT32", parts[1]).value);
  const t = TYPE_NAMES.get(typeId);
  check(t !== undefined, "invalid.tuple-type", `collection type id ${typeId} is not a 3.0 value type`);
  check(count === n - 2, "invalid.tuple-type", `collection count ${count} with ${n} elements (count + 2 expected)`);
  return parts.slice(2).map((b) => {
    check(b.length > 0, "invalid.tuple-length", "a NULL collection item");
    return { type: t, ...decodeElement(/** @type {string} */ (t), b, era) };
  });
}

const COMPUTE_NATIVE = 0, COMPUTE_MARSHALLED = 2; // ComputeJobDataType ids the corpus models

/** Spec 6.4: kind, then one bin holding a triple or the marshaller's bytes. @param {number} kind @param {any[]} outer @param {string} era */
function readComputeArg(kind, outer, era) {
  check(kind === COMPUTE_NATIVE || kind === COMPUTE_MARSHALLED, "invalid.tuple-type", `compute argument kind ${kind}`);
  check(outer.length > 1, "malformed.truncated", "compute argument: the input ends where the bin belongs");
  const data = oneBinAfter(outer, "compute argument");
  return [kind === COMPUTE_MARSHALLED ? { type: "MARSHALLED", hex: toHex(data) } : readTriple(readTuple(data, 3, era).parts)];
}

/** @param {any[]} values */
function collectionParts(values) {
  const t = values[0].type;
  for (const v of values) {
    check(v.type !== "NULL", "unrepresentable", "a NULL collection item");
    check(v.type === t, "unrepresentable", `collection items of types ${t} and ${v.type}`);
  }
  return [encodeInt("INT32", BigInt(TYPE_IDS[t])), encodeInt("INT32", BigInt(values.length)), ...values.map((v) => encodeElement(v))];
}

/** Batched arguments (spec BT-BATCH): nil, or row length N, row count, a bool (ignored), one bin per row of 3N
 * elements. @param {any[]} outer @param {string} era @returns {object[]} one typed array per row */
function readBatch(outer, era) {
  if (outer[0]?.type === "nil") {
    check(outer.length === 1, "invalid.tuple-type", "batched arguments: nil followed by more values");
    return [];
  }
  // input that ends where a header value or a row belongs is truncated (spec BT-BATCH-FORM): Java meets the end
  [["int", "row length"], ["int", "row count"], ["bool", "third value"]].forEach(([want, what], i) => {
    check(outer.length > i, "malformed.truncated", `batched arguments: the input ends where the ${what} belongs`);
    check(outer[i].type === want, "invalid.tuple-type", "batched arguments are a row length, a count and a bool, then the rows");
  });
  const n = BigInt(outer[0].value);
  const rows = BigInt(outer[1].value);
  check(n >= 0n && rows >= 0n && (n > 0n || rows === 0n), "invalid.tuple-type", `batched arguments: row length ${n}, count ${rows}`);
  check(BigInt(outer.length - 3) >= rows, "malformed.truncated", `batched arguments: count ${rows}, the input ends after ${outer.length - 3} rows`);
  check(BigInt(outer.length - 3) === rows, "invalid.tuple-type", `batched arguments: count ${rows}, ${outer.length - 3} values follow`);
  return outer.slice(3).map((row) => {
    const { parts } = readTuple(binOf(row, "batch row"), 3 * Number(n), era);
    return { type: "array", items: Array.from({ length: Number(n) }, (_, i) => readTriple(parts.slice(3 * i, 3 * i + 3))) };
  });
}

/** @param {any[]} values one typed array per row @returns {Uint8Array} */
function writeBatch(values) {
  const rows = values.map((v) => (v?.type === "array" && Array.isArray(v.items) ? v.items : null));
  check(rows.every((r) => r !== null), "unrepresentable", "batched arguments: every row is a typed array");
  if (rows.length === 0) return encodeAll([{ type: "nil" }]);
  const lengths = new Set(rows.map((r) => r.length));
  check(lengths.size === 1 && rows[0].length > 0, "unrepresentable", `batched arguments: rows of lengths ${[...lengths]} (one length >= 1 is written)`);
  return encodeAll([{ type: "int", value: String(rows[0].length) }, { type: "int", value: String(rows.length) },
    { type: "bool", value: false }, ...rows.map((r) => ({ type: "bin", hex: toHex(writeTuple(r.flatMap(triple))) }))]);
}

/**
 * @param {string} format @param {Uint8Array} data @param {string} era @param {string[]} columns
 * @returns {object[]} typed elements
 */
export function decode(format, data, era, columns) {
  if (format === "binary-tuple") {
    const { parts, nulls } = readTuple(data, columns.length, era);
    return columns.map((t, i) => decodeColumn(t, parts[i], era, nulls.has(i)));
  }
  const outer = /** @type {any[]} */ (decodeAll(data, "3.0"));
  // input that ends where a value of the form belongs is truncated (spec BT-WRAPPER, BT-COLLECTION-COUNT,
  // BT-COMPUTE-ARG-BIN): Java meets the end of its buffer, as for any cut value
  check(outer.length > 0, "malformed.truncated", `${format}: no value`);
  switch (format) {
    case "object":
      check(outer.length === 1, "invalid.tuple-type", `an object is one MessagePack value, not ${outer.length}`);
      if (outer[0].type === "nil") return [{ type: "NULL" }];
      return [readTriple(readTuple(binOf(outer[0], "object"), 3, era).parts)];
    case "object-array": {
      check(outer[0]?.type === "int", "invalid.tuple-type", "an object array starts with its count");
      const n = Number(outer[0].value);
      check(n >= 0, "invalid.tuple-type", `object array count ${n} is negative`);
      check(n === 0 || outer.length > 1, "malformed.truncated", "object array: the input ends where the bin belongs");
      check(outer.length === (n ? 2 : 1), "invalid.tuple-type", "an object array is a count and (N > 0) one bin");
      if (n === 0) return [];
      const { parts } = readTuple(binOf(outer[1], "object array"), 3 * n, era);
      return Array.from({ length: n }, (_, i) => readTriple(parts.slice(3 * i, 3 * i + 3)));
    }
    case "batched-arguments":
      return readBatch(outer, era);
    case "table-row": {
      check(outer.length > 1 || outer[0].type !== "bitmask", "malformed.truncated", "row: the input ends where the bin belongs");
      check(outer.length === 2 && outer[0].type === "bitmask", "invalid.tuple-type", "a row is a BITMASK and a bin");
      const { parts } = readTuple(binOf(outer[1], "row"), columns.length, era);
      const noValue = new Set(outer[0].bits);
      return columns.map((t, i) => (noValue.has(i) ? { type: "NO_VALUE" } : decodeColumn(t, parts[i], era)));
    }
    case "collection":
    case "compute-arg": {
      if (outer[0].type === "nil") {
        check(outer.length === 1, "invalid.tuple-type", `${format}: nil followed by more values`);
        return format === "collection" ? [] : [{ type: "NULL" }];
      }
      check(outer[0].type === "int", "invalid.tuple-type", `${format}: the first value is not an int`);
      const first = Number(outer[0].value);
      return format === "collection" ? readCollection(first, outer, era) : readComputeArg(first, outer, era);
    }
    default:
      throw new NotPerformed(`format '${format}' is not implemented`);
  }
}

/**
 * @param {string} format @param {any[]} values typed elements @param {string} era
 * @returns {Uint8Array}
 */
export function encode(format, values, era) {
  switch (format) {
    case "binary-tuple": {
      const nulls = era === "beta1" ? values.flatMap((v, i) => (v.type === "NULL" ? [i] : [])) : null;
      return writeTuple(values.map((v) => encodeElement(v, era)), nulls);
    }
    case "object": {
      const v = values[0];
      if (v.type === "NULL") return encodeAll([{ type: "nil" }]);
      return encodeAll([{ type: "bin", hex: toHex(writeTuple(triple(v))) }]);
    }
    case "object-array": {
      /** @type {object[]} */
      const out = [{ type: "int", value: String(values.length) }];
      if (values.length) out.push({ type: "bin", hex: toHex(writeTuple(values.flatMap(triple))) });
      return encodeAll(out);
    }
    case "batched-arguments":
      return writeBatch(values);
    case "table-row": {
      const bits = values.flatMap((v, i) => (v.type === "NO_VALUE" ? [i] : []));
      const row = writeTuple(values.map((v) => encodeElement(v)));
      return encodeAll([{ type: "bitmask", era, bits }, { type: "bin", hex: toHex(row) }]);
    }
    case "collection":
      if (!values.length) return encodeAll([{ type: "nil" }]);
      return encodeAll([{ type: "int", value: String(values.length + 2) }, { type: "bin", hex: toHex(writeTuple(collectionParts(values))) }]);
    case "compute-arg": {
      const v = values[0];
      if (v.type === "NULL") return encodeAll([{ type: "nil" }]);
      const marshalled = v.type === "MARSHALLED";
      return encodeAll([{ type: "int", value: String(marshalled ? COMPUTE_MARSHALLED : COMPUTE_NATIVE) },
        { type: "bin", hex: marshalled ? v.hex : toHex(writeTuple(triple(v))) }]);
    }
    default:
      throw new NotPerformed(`format '${format}' is not implemented`);
  }
}
