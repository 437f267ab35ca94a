// Floor for the JS runner: bare Node starting and parsing every corpus file once. node:fs and node:path come
// through require, as the runner loads its modules (importing node:fs builds an ES module facade of all of fs).
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const { readdirSync, readFileSync } = require("node:fs");
const { join } = require("node:path");

const dir = process.argv[2];
let count = 0;
for (const name of readdirSync(dir).sort()) {
  if (name.endsWith(".json") && name !== "manifest.json") count += JSON.parse(readFileSync(join(dir, name), "utf8")).vectors.length;
}
console.log(count);
