// The unit-test route of docs/add-your-client.md: an implementer's own node:test over the corpus package, with
// the skip file the gate reads too (SKIP_FILE). ./my-decoder.js stands for the decoder under test. A listed op
// that passes fails the test, as it fails the gate (the harness's xpass).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { load, SkipList } from 'ignite-wire-corpus';
import { decode } from './my-decoder.js';

const corpus = load();
const skips = SkipList.load(process.env.SKIP_FILE ?? 'conformance/expected-failures.txt');

for (const v of corpus.vectors({ family: 'int', kind: 'value' })) {
  const ops = [['decode', v.canonical], ...Object.entries(v.variants).map(([label, bytes]) => [`decode[${label}]`, bytes])];
  for (const [op, bytes] of ops) {
    const reason = skips.reason(v, op);
    test(`${v.id} ${op}`, () => {
      const check = () => assert.equal(decode(bytes), BigInt(v.values[0].value));
      if (reason) assert.throws(check, `listed as failing (${reason}) but passes`); else check();
    });
  }
}
