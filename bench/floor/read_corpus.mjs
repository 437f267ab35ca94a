// Floor for the JS runner: bare Node starting and parsing every corpus file once.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const dir = process.argv[2];
let count = 0;
for (const name of readdirSync(dir).sort()) {
  if (name.endsWith(".json") && name !== "manifest.json") count += JSON.parse(readFileSync(join(dir, name), "utf8")).vectors.length;
}
console.log(count);
