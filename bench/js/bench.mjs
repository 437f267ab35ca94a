// @msgpack/msgpack benchmark: the IEP-75 cases and the Ignite.NET Person, through the library's plain API and
// through the runner's type-directed codec (runners/js/codec.mjs, with the runner's own installed library).
//   node bench/js/bench.mjs bench/build/cases.json [repeat] [seconds per repeat]
// Timing: mitata's measure() (warm-up, batching, JIT guards), repeated `repeat` times on a CPU-time clock
// (process.cpuUsage: other processes on a shared machine count less); each repeat gives ops/s = 1e9 / avg ns.
// Before anything is timed, both paths must write exactly the case's canonical bytes and read its values back.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { isDeepStrictEqual } from "node:util";
import { measure, do_not_optimize } from "mitata";

const runnerDir = new URL("../../runners/js/", import.meta.url);
const library = createRequire(new URL("package.json", runnerDir));
const { Encoder, Decoder, ExtData } = await import(library.resolve("@msgpack/msgpack"));
const { version } = JSON.parse(readFileSync(new URL("node_modules/@msgpack/msgpack/package.json", runnerDir), "utf8"));
const { encodeAll, decodeAll } = await import(new URL("codec.mjs", runnerDir).href);

const [casesPath, repeatArg, secondsArg] = process.argv.slice(2);
const repeat = Number(repeatArg ?? 7);
const seconds = Number(secondsArg ?? 0.1);
const cases = JSON.parse(readFileSync(casesPath, "utf8")).cases;

const SQL = "select * from cars where year > ? and seats = ?";
const UUID_EXT = 3; // Ignite's UUID ext code (3.0: msb then lsb, each little-endian)
const PRIMITIVES = [null, false, true, 2005, -1, -2147483648, 4294967296, 0.1, "John Johnson"];
const CAR = { id: 42, model: "Mazda MX-5 Miata", year: 2006, seats: 2 };
const PERSON = { id: -2147483648, name: "John Johnson", data: "g".repeat(1000), guid: "6f24146a-244a-4018-a36c-3e9cf5b42082" };

const encoder = new Encoder();
const decoder = new Decoder();
const writeSeq = (values) => Buffer.concat(values.map((v) => encoder.encode(v)));
const readSeq = (bytes) => Array.from(decoder.decodeMulti(bytes));

// The Guid's two 64-bit halves, each little-endian (3.0 layout), and back.
function uuidPayload(text) {
  const hex = text.replaceAll("-", "");
  const out = new Uint8Array(16);
  for (let i = 0; i < 8; i++) {
    out[7 - i] = parseInt(hex.substr(2 * i, 2), 16);
    out[15 - i] = parseInt(hex.substr(16 + 2 * i, 2), 16);
  }
  return out;
}
function uuidText(p) {
  const hex = Buffer.from([...p.subarray(0, 8)].reverse().concat([...p.subarray(8)].reverse())).toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
const writePerson = (p) => encoder.encode([p.id, p.name, p.data, new ExtData(UUID_EXT, uuidPayload(p.guid))]);
function readPerson(bytes) {
  const [id, name, data, guid] = /** @type {any[]} */ (decoder.decode(bytes));
  if (!(guid instanceof ExtData) || guid.type !== UUID_EXT || guid.data.length !== 16) throw new Error("not a UUID");
  return { id, name, data, guid: uuidText(guid.data) };
}

const plain = {
  primitives: [() => writeSeq(PRIMITIVES), readSeq, PRIMITIVES],
  "sql-request": [() => writeSeq([SQL, [2005, 2]]), readSeq, [SQL, [2005, 2]]],
  "pojo-named": [() => encoder.encode({ id: CAR.id, model: CAR.model, year: CAR.year, seats: CAR.seats }),
    (b) => { const o = decoder.decode(b); return { id: o.id, model: o.model, year: o.year, seats: o.seats }; }, CAR],
  "pojo-positional": [() => encoder.encode([CAR.id, CAR.model, CAR.year, CAR.seats]),
    (b) => { const [id, model, year, seats] = decoder.decode(b); return { id, model, year, seats }; }, CAR],
  person: [() => writePerson(PERSON), readPerson, PERSON],
};

const cpuNs = () => { const u = process.cpuUsage(); return 1e3 * (u.user + u.system); };

async function rates(fn) {
  const out = [];
  for (let r = 0; r < repeat; r++) {
    const stats = await measure(() => do_not_optimize(fn()), { now: cpuNs, min_cpu_time: seconds * 1e9 });
    out.push(1e9 / stats.avg);
  }
  return out.sort((a, b) => a - b);
}

for (const [name, c] of Object.entries(cases)) {
  const canonical = Uint8Array.from(Buffer.from(c.hex, "hex"));
  const [write, read, native] = plain[name];
  const same = (a, b) => Buffer.from(a).equals(Buffer.from(b));
  const bad = Object.entries({
    "plain write": same(write(), canonical), "plain read": isDeepStrictEqual(read(canonical), native),
    "typed write": same(encodeAll(c.values), canonical), "typed read": isDeepStrictEqual(decodeAll(canonical, c.era), c.values),
  }).filter(([, ok]) => !ok).map(([k]) => k);
  if (bad.length) {
    console.error(`js ${name}: ${bad.join(", ")} differ from the case's bytes/values`);
    process.exit(1);
  }
  const ops = name === "person"
    ? { "roundtrip/plain": () => read(write()), "roundtrip/typed": () => decodeAll(encodeAll(c.values), c.era) }
    : { "write/plain": write, "read/plain": () => read(canonical),
        "write/typed": () => encodeAll(c.values), "read/typed": () => decodeAll(canonical, c.era) };
  for (const [key, fn] of Object.entries(ops)) {
    const r = await rates(fn);
    const [op, path] = key.split("/");
    console.log(JSON.stringify({ lang: "js", library: `@msgpack/msgpack ${version}`, timer: "mitata measure() x repeats, CPU time",
      case: name, op, path, bytes: canonical.length, median: r[r.length >> 1], min: r[0], max: r[r.length - 1], n: repeat }));
  }
}
