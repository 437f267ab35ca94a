// Stands for the implementer's decoder in unit-route.test.mjs: one MessagePack integer (every int format), as a
// BigInt; anything else throws.
const WIDE = {
  0xcc: [1, (v) => v.getUint8(1)], 0xcd: [2, (v) => v.getUint16(1)], 0xce: [4, (v) => v.getUint32(1)],
  0xcf: [8, (v) => v.getBigUint64(1)], 0xd0: [1, (v) => v.getInt8(1)], 0xd1: [2, (v) => v.getInt16(1)],
  0xd2: [4, (v) => v.getInt32(1)], 0xd3: [8, (v) => v.getBigInt64(1)],
};

export function decode(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const head = bytes[0];
  const [size, read] = WIDE[head] ?? [0, head <= 0x7f || head >= 0xe0 ? (v) => v.getInt8(0) : null];
  if (read === null) throw new Error(`not an int: 0x${head.toString(16)}`);
  if (bytes.length !== 1 + size) throw new Error(`expected ${1 + size} bytes, got ${bytes.length}`);
  return BigInt(read(view));
}
