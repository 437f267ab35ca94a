// A consumer's unit test of the installed ignite-wire-corpus package (tests/test_packages_npm.py runs it with
// node's test runner in a scratch project). IWC_EXPECTED names the JSON of what to find
// (tests/package_fixtures/packages_helper.py).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { CorpusIntegrityError, load, SkipList, SkipListError } from 'ignite-wire-corpus';

const EXPECTED = JSON.parse(readFileSync(process.env.IWC_EXPECTED, 'utf8'));
const corpus = load();
const hex = (bytes) => Buffer.from(bytes).toString('hex');

test('the installed package carries the release', () => {
  assert.ok(fileURLToPath(import.meta.resolve('ignite-wire-corpus')).includes('/node_modules/ignite-wire-corpus/'));
  const pkg = JSON.parse(readFileSync(new URL('./node_modules/ignite-wire-corpus/package.json', import.meta.url)));
  assert.equal(pkg.version, EXPECTED.version);
  assert.equal(corpus.version, EXPECTED.version);
  assert.equal(corpus.specVersion, EXPECTED.spec_version);
  assert.equal(corpus.manifestSha256, EXPECTED.manifest_sha256);
  assert.deepEqual(corpus.counts, EXPECTED.files);
});

test('counts per kind and per file', () => {
  const kinds = {};
  for (const v of corpus) kinds[v.kind] = (kinds[v.kind] ?? 0) + 1;
  assert.deepEqual(kinds, EXPECTED.kinds);
  const families = Object.fromEntries(Object.keys(EXPECTED.families).map((f) => [f, [...corpus.vectors({ family: f })].length]));
  assert.deepEqual(families, EXPECTED.families);
  assert.equal(corpus.size, EXPECTED.total);
});

test('filters combine', () => {
  const { count, ...query } = EXPECTED.filter;
  const picked = [...corpus.vectors(query)];
  assert.ok(count > 0);
  assert.equal(picked.length, count);
  for (const v of picked) {
    assert.deepEqual([v.family, v.era, v.format, v.kind], [query.family, query.era, query.format, query.kind]);
    assert.ok(v.rules.includes(query.rule));
  }
  for (const v of corpus.vectors({ kind: 'decode-reject' })) assert.ok(v.error && v.canonical === null);
  for (const v of corpus.vectors({ kind: 'encode-reject' })) assert.ok((v.values?.length || v.fields) && v.bytes === null);
});

test('a frame vector has its kind and fields', () => {
  const f = EXPECTED.frame;
  const v = corpus.vector(f.id);
  assert.deepEqual([v.format, v.frame, Object.keys(v.fields).sort(), hex(v.canonical), v.values],
    ['frame', f.frame, f.fields, f.hex, null]);
});

test('ten vectors decode', () => {
  assert.equal(EXPECTED.samples.length, 10);
  for (const s of EXPECTED.samples) {
    const v = corpus.vector(s.id);
    assert.equal(v.kind, s.kind);
    assert.ok(v.bytes instanceof Uint8Array);
    assert.equal(hex(v.bytes), s.hex);
    assert.deepEqual(Object.fromEntries(Object.entries(v.variants).map(([l, b]) => [l, hex(b)])), s.variants);
  }
});

test('the skip list reads as the harness does', () => {
  const skips = SkipList.load(EXPECTED.skips);
  const got = EXPECTED.skip_cases.map((c) => ({ id: c.id, op: c.op, reason: skips.reason(corpus.vector(c.id), c.op) }));
  assert.deepEqual(got, EXPECTED.skip_cases);
});

test('the skip list refuses the lines the harness refuses, naming the line', () => {
  for (const line of EXPECTED.skip_lines) {
    let refused = null;
    try {
      SkipList.parse(`# a comment\n${line.text}\n`, 'mine.txt');
    } catch (e) {
      assert.ok(e instanceof SkipListError, e);
      refused = e.message;
    }
    assert.equal(refused === null, line.valid, `${line.text}: ${refused}`);
    assert.ok(refused === null || refused.startsWith('mine.txt:2: '), refused);
  }
});

test('a tampered copy is refused', () => {
  const t = EXPECTED.tampered;
  assert.throws(() => load(t.dir), (e) => e instanceof CorpusIntegrityError
    && e.message.includes(`${t.file}: sha256 ${t.actual}`) && e.message.includes(t.expected));
  assert.equal(createHash('sha256').update(readFileSync(join(t.dir, t.file))).digest('hex'), t.actual);
});

test('a partial copy is refused naming the missing and the extra file', () => {
  const p = EXPECTED.partial;
  assert.throws(() => load(p.dir), (e) => e instanceof CorpusIntegrityError
    && e.message.includes(`${p.missing}: missing`) && e.message.includes(`${p.extra}: extra`));
});
