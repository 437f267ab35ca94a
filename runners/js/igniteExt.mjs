// Ignite extension payloads (registry.json "layouts"): payload bytes <-> typed value notation.
// The MessagePack container around a payload (fixext/ext8/16/32) is the library's business; this module only
// sees the payload. Which code means which layout in which era is read from schema/registry.json.
import { createRequire } from "node:module";
import { WireError } from "./wireError.mjs";

// Required, not imported: see runner.mjs.
const require = createRequire(import.meta.url);
/** @type {typeof import("node:fs")} */
const { readFileSync } = require("node:fs");
/** @type {typeof import("@msgpack/msgpack")} */
const { Decoder, Encoder } = require("@msgpack/msgpack");

const registry = JSON.parse(readFileSync(new URL("../../schema/registry.json", import.meta.url), "utf8"));

/** @type {string[]} every era id, plain MessagePack first */
export const ERAS = registry.eras.map((/** @type {{id: string}} */ e) => e.id);

/**
 * Ext codes the era assigns, with their layout ids.
 * @param {string} era
 * @returns {Map<number, string>}
 */
export function layoutsOf(era) {
  const table = new Map();
  for (const t of registry.ext_types) {
    if (t.layouts[era] !== undefined) table.set(t.code, t.layouts[era]);
  }
  return table;
}

/** value type (value.schema.json) -> ext code, for encoding */
const CODE_BY_TYPE = new Map();
for (const t of registry.ext_types) {
  for (const layoutId of Object.values(t.layouts)) {
    const layout = registry.layouts.find((/** @type {{id: string}} */ l) => l.id === layoutId);
    CODE_BY_TYPE.set(layout.value_type, t.code);
  }
}

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const YEAR_MAX = 999999999;
const NANO_MAX = 999999999;
// java.time.Instant.MIN / MAX epoch seconds
const INSTANT_SECONDS_MIN = -31557014167219200n;
const INSTANT_SECONDS_MAX = 31556889864403199n;

// The alpha5 DECIMAL scale is a MessagePack int inside the payload: the library reads and writes it.
const scaleDecoder = new Decoder({ useBigInt64: true });
const scaleEncoder = new Encoder();

/** @param {Uint8Array} bytes */
const hexOf = (bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");
/** @param {Uint8Array} bytes */
const viewOf = (bytes) => new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);

// ---------------------------------------------------------------------------------------------- decoding

/**
 * @param {string} layout registry layout id
 * @param {Uint8Array} data ext payload
 * @param {string} era the request's era (echoed in the value)
 * @returns {object} typed value
 */
export function decodeIgnite(layout, data, era) {
  const view = viewOf(data);
  const n = data.length;
  switch (layout) {
    case "number":
      needAtLeast(n, 1, layout);
      return { type: "number", era, value: twosComplementToBigInt(data).toString() };
    case "decimal-int32-scale":
      needAtLeast(n, 5, layout);
      return { type: "decimal", era, unscaled: twosComplementToBigInt(data.subarray(4)).toString(), scale: view.getInt32(0) };
    case "decimal-varint-scale": {
      needAtLeast(n, 2, layout);
      const size = msgpackIntSize(data[0]);
      if (size === 0) throw new WireError("invalid.ext-value", `decimal scale starts with 0x${hex2(data[0])}, not a MessagePack int`);
      if (size >= n) throw new WireError("invalid.ext-value", `decimal scale needs ${size} bytes and an unscaled value after it; payload has ${n}`);
      const scale = BigInt(/** @type {number|bigint} */ (scaleDecoder.decode(data.subarray(0, size))));
      if (scale < INT32_MIN || scale > INT32_MAX) throw new WireError("invalid.ext-value", `decimal scale ${scale} outside int32`);
      return { type: "decimal", era, unscaled: twosComplementToBigInt(data.subarray(size)).toString(), scale: Number(scale) };
    }
    case "uuid-be":
    case "uuid-le":
      needExactly(n, 16, layout);
      return { type: "uuid", era, value: uuidText(data, layout === "uuid-le") };
    case "date":
      needExactly(n, 6, layout);
      return { type: "date", era, ...readDate(view, 0) };
    case "time":
      needExactly(n, 7, layout);
      return { type: "time", era, ...readTime(view, 0) };
    case "datetime":
      needExactly(n, 13, layout);
      return { type: "datetime", era, ...readDate(view, 0), ...readTime(view, 6) };
    case "timestamp": {
      needExactly(n, 12, layout);
      const seconds = view.getBigInt64(0);
      const nano = view.getInt32(8);
      checkTimestamp(seconds, nano);
      return { type: "timestamp", era, seconds: seconds.toString(), nano };
    }
    case "bitmask": {
      const bits = [];
      for (let k = 0; k < n; k++) {
        for (let j = 0; j < 8; j++) if (data[k] & (1 << j)) bits.push(8 * k + j);
      }
      return { type: "bitmask", era, bits };
    }
    case "ignite-uuid":
      needExactly(n, 24, layout);
      return { type: "ignite_uuid", era, global: uuidText(data.subarray(0, 16), false), local: view.getBigInt64(16).toString() };
    case "no-value":
      needExactly(n, 1, layout); // the byte's value is ignored (EXT-NO-VALUE)
      return { type: "no_value", era };
    default:
      throw new Error(`registry layout '${layout}' is not implemented by this runner`);
  }
}

/** @param {number} n @param {number} min @param {string} layout */
function needAtLeast(n, min, layout) {
  if (n < min) throw new WireError("invalid.ext-length", `${layout} payload needs at least ${min} bytes, has ${n}`);
}

/** @param {number} n @param {number} len @param {string} layout */
function needExactly(n, len, layout) {
  if (n !== len) throw new WireError("invalid.ext-length", `${layout} payload must be ${len} bytes, has ${n}`);
}

/** @param {number} b */
const hex2 = (b) => b.toString(16).padStart(2, "0");

/**
 * Size in bytes of the MessagePack int whose first byte is `head`, or 0 if `head` does not start an int.
 * (The library's Decoder reports neither a value's format nor how many bytes it consumed.)
 * @param {number} head
 */
function msgpackIntSize(head) {
  if (head <= 0x7f || head >= 0xe0) return 1; // positive / negative fixint
  switch (head) {
    case 0xcc: case 0xd0: return 2;
    case 0xcd: case 0xd1: return 3;
    case 0xce: case 0xd2: return 5;
    case 0xcf: case 0xd3: return 9;
    default: return 0;
  }
}

/** Big-endian two's complement, any length >= 1 (sign-extended forms accepted). @param {Uint8Array} bytes */
function twosComplementToBigInt(bytes) {
  return BigInt.asIntN(8 * bytes.length, BigInt("0x" + hexOf(bytes)));
}

/** @param {Uint8Array} bytes 16 bytes @param {boolean} littleEndianHalves */
function uuidText(bytes, littleEndianHalves) {
  let b = bytes;
  if (littleEndianHalves) b = Uint8Array.from([...bytes.subarray(0, 8).reverse(), ...bytes.subarray(8, 16).reverse()]);
  const h = hexOf(b);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** @param {DataView} view @param {number} at */
function readDate(view, at) {
  const date = { year: view.getInt32(at), month: view.getUint8(at + 4), day: view.getUint8(at + 5) };
  checkDate(date.year, date.month, date.day);
  return date;
}

/** @param {DataView} view @param {number} at */
function readTime(view, at) {
  const time = { hour: view.getUint8(at), minute: view.getUint8(at + 1), second: view.getUint8(at + 2), nano: view.getInt32(at + 3) };
  checkTime(time.hour, time.minute, time.second, time.nano);
  return time;
}

// ------------------------------------------------------------------------------------------ validation

/** @param {number} year */
const isLeap = (year) => year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);

/** @param {number} year @param {number} month @param {number} day */
function checkDate(year, month, day) {
  const ok = Number.isInteger(year) && Number.isInteger(month) && Number.isInteger(day)
    && year >= -YEAR_MAX && year <= YEAR_MAX && month >= 1 && month <= 12
    && day >= 1 && day <= [31, isLeap(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  if (!ok) throw new WireError("invalid.ext-value", `no such date: year ${year}, month ${month}, day ${day}`);
}

/** @param {number} hour @param {number} minute @param {number} second @param {number} nano */
function checkTime(hour, minute, second, nano) {
  const ok = [hour, minute, second, nano].every(Number.isInteger)
    && hour >= 0 && hour <= 23 && minute >= 0 && minute <= 59 && second >= 0 && second <= 59 && nano >= 0 && nano <= NANO_MAX;
  if (!ok) throw new WireError("invalid.ext-value", `no such time: ${hour}:${minute}:${second}.${nano}`);
}

/** @param {bigint} seconds @param {number} nano */
function checkTimestamp(seconds, nano) {
  if (seconds < INSTANT_SECONDS_MIN || seconds > INSTANT_SECONDS_MAX) {
    throw new WireError("invalid.ext-value", `timestamp seconds ${seconds} outside java.time.Instant's range`);
  }
  if (!Number.isInteger(nano) || nano < 0 || nano > NANO_MAX) throw new WireError("invalid.ext-value", `timestamp nano ${nano} outside 0..999999999`);
}

// ---------------------------------------------------------------------------------------------- encoding

/** @param {string} type */
export const isIgniteType = (type) => CODE_BY_TYPE.has(type);

/**
 * Payload of an Ignite typed value, laid out for the value's own era.
 * @param {any} value typed value (value.schema.json, an Ignite type)
 * @returns {{code: number, payload: Uint8Array}}
 */
export function encodeIgnite(value) {
  const code = CODE_BY_TYPE.get(value.type);
  const layout = layoutsOf(value.era).get(code);
  if (layout === undefined) throw new WireError("unrepresentable", `era '${value.era}' has no ext type for ${value.type}`);
  return { code, payload: payloadOf(layout, value) };
}

/** @param {string} layout @param {any} v */
function payloadOf(layout, v) {
  switch (layout) {
    case "number":
      return bigIntToTwosComplement(BigInt(v.value));
    case "decimal-int32-scale": {
      if (!Number.isInteger(v.scale) || v.scale < INT32_MIN || v.scale > INT32_MAX) {
        throw new WireError("unrepresentable", `decimal scale ${v.scale} outside int32`);
      }
      const scale = new Uint8Array(4);
      viewOf(scale).setInt32(0, v.scale);
      return concat([scale, bigIntToTwosComplement(BigInt(v.unscaled))]);
    }
    case "decimal-varint-scale":
      if (!Number.isInteger(v.scale) || v.scale < INT32_MIN || v.scale > INT32_MAX) {
        throw new WireError("unrepresentable", `decimal scale ${v.scale} outside int32`);
      }
      return concat([scaleEncoder.encode(v.scale), bigIntToTwosComplement(BigInt(v.unscaled))]);
    case "uuid-be":
    case "uuid-le":
      return uuidBytes(v.value, layout === "uuid-le");
    case "date": {
      checkDate(v.year, v.month, v.day);
      const out = new Uint8Array(6);
      writeDate(viewOf(out), 0, v);
      return out;
    }
    case "time": {
      checkTime(v.hour, v.minute, v.second, v.nano);
      const out = new Uint8Array(7);
      writeTime(viewOf(out), 0, v);
      return out;
    }
    case "datetime": {
      checkDate(v.year, v.month, v.day);
      checkTime(v.hour, v.minute, v.second, v.nano);
      const out = new Uint8Array(13);
      writeDate(viewOf(out), 0, v);
      writeTime(viewOf(out), 6, v);
      return out;
    }
    case "timestamp": {
      const seconds = BigInt(v.seconds);
      checkTimestamp(seconds, v.nano);
      const out = new Uint8Array(12);
      viewOf(out).setBigInt64(0, seconds);
      viewOf(out).setInt32(8, v.nano);
      return out;
    }
    case "bitmask": {
      // Trailing zero bytes trimmed, like BitSet.toByteArray(): the length follows from the highest bit.
      const bits = /** @type {number[]} */ (v.bits);
      if (!bits.every((i) => Number.isInteger(i) && i >= 0)) throw new WireError("unrepresentable", "bitmask indices must be non-negative integers");
      const highest = bits.reduce((a, b) => Math.max(a, b), -1);
      const out = new Uint8Array(Math.floor(highest / 8) + 1);
      for (const i of bits) out[i >> 3] |= 1 << (i & 7);
      return out;
    }
    case "ignite-uuid": {
      const local = BigInt(v.local);
      if (local < INT64_MIN || local > INT64_MAX) throw new WireError("unrepresentable", `ignite_uuid local ${local} outside int64`);
      const out = new Uint8Array(24);
      out.set(uuidBytes(v.global, false));
      viewOf(out).setBigInt64(16, local);
      return out;
    }
    case "no-value":
      return Uint8Array.of(0);
    default:
      throw new Error(`registry layout '${layout}' is not implemented by this runner`);
  }
}

/** @param {DataView} view @param {number} at @param {any} v */
function writeDate(view, at, v) {
  view.setInt32(at, v.year);
  view.setUint8(at + 4, v.month);
  view.setUint8(at + 5, v.day);
}

/** @param {DataView} view @param {number} at @param {any} v */
function writeTime(view, at, v) {
  view.setUint8(at, v.hour);
  view.setUint8(at + 1, v.minute);
  view.setUint8(at + 2, v.second);
  view.setInt32(at + 3, v.nano);
}

/** Minimal big-endian two's complement (BigInteger.toByteArray). @param {bigint} n */
function bigIntToTwosComplement(n) {
  const magnitudeBits = (n < 0n ? -n - 1n : n).toString(2).length; // 0 and -1 give 1, which is fine
  const len = Math.floor(magnitudeBits / 8) + 1; // room for the sign bit
  return Uint8Array.from(Buffer.from(BigInt.asUintN(8 * len, n).toString(16).padStart(2 * len, "0"), "hex"));
}

/** @param {string} text canonical UUID @param {boolean} littleEndianHalves */
function uuidBytes(text, littleEndianHalves) {
  const b = Uint8Array.from(Buffer.from(text.replaceAll("-", ""), "hex"));
  if (b.length !== 16) throw new WireError("unrepresentable", `not a UUID: ${text}`);
  if (littleEndianHalves) {
    b.subarray(0, 8).reverse();
    b.subarray(8, 16).reverse();
  }
  return b;
}

/** @param {Uint8Array[]} parts */
function concat(parts) {
  return Uint8Array.from(Buffer.concat(parts));
}
