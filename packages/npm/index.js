// The Ignite 3 thin-client wire-value golden vectors, for an implementer's own unit tests.
//
//   import { load } from 'ignite-wire-corpus';
//   const corpus = load();                    // the corpus in this package (or load('path/to/vectors'))
//   for (const v of corpus.vectors({ family: 'bt-decimal', kind: 'value' })) { ... v.canonical, v.values ... }
//
// The corpus files' structure is schema/corpus.schema.json of the conformance suite; Vector.raw is a vector as it
// stands there. The skip-file format (SkipList) is docs/skip-file.md.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const EMBEDDED = fileURLToPath(new URL('./vectors/', import.meta.url));
const MANIFEST = 'manifest.json';

/** The corpus directory is not the one its manifest.json describes (changed, missing or extra files). */
export class CorpusIntegrityError extends Error {
  constructor(message) { super(message); this.name = 'CorpusIntegrityError'; }
}

/** A skip file line that does not follow the format (the message names the source and line). */
export class SkipListError extends Error {
  constructor(message) { super(message); this.name = 'SkipListError'; }
}

/** The corpus embedded in this package, or the corpus directory given; verified against its manifest. */
export function load(directory = EMBEDDED) {
  return new Corpus(directory);
}

const fromHex = (hex) => new Uint8Array(Buffer.from(hex, 'hex'));

export class Vector {
  constructor(raw, family) { this.raw = raw; this.family = family; }
  get id() { return this.raw.id; }
  get kind() { return this.raw.kind; }
  get era() { return this.raw.era; }
  get format() { return this.raw.format ?? 'msgpack'; }
  get rules() { return [...this.raw.rules]; }
  get level() { return this.raw.level; }
  get description() { return this.raw.description; }
  get values() { return this.raw.values ?? null; }
  get frame() { return this.raw.frame ?? null; }
  get features() { return this.raw.features ?? []; }
  get fields() { return this.raw.fields ?? null; }
  get error() { return this.raw.error ?? null; }
  get canonical() { return this.kind === 'value' ? fromHex(this.raw.canonical) : null; }
  get bytes() {
    if (this.kind === 'encode-reject') return null;
    return fromHex(this.kind === 'value' ? this.raw.canonical : this.raw.hex);
  }
  get variants() {
    return Object.fromEntries((this.raw.variants ?? []).map((v) => [v.label, fromHex(v.hex)]));
  }
  get ops() {
    if (this.kind === 'value') return ['encode', 'decode', ...this.raw.variants.map((v) => `decode[${v.label}]`)];
    return [this.kind === 'decode-reject' ? 'reject' : 'reject-encode'];
  }
}

const sha256 = (data) => createHash('sha256').update(data).digest('hex');

export class Corpus {
  constructor(directory) {
    this.directory = directory;
    let manifestBytes;
    try {
      manifestBytes = readFileSync(join(directory, MANIFEST));
    } catch (e) {
      throw new CorpusIntegrityError(`${directory}: no readable ${MANIFEST} (${e.code})`);
    }
    this.manifestSha256 = sha256(manifestBytes);
    try {
      this.manifest = JSON.parse(manifestBytes.toString('utf8'));
    } catch (e) {
      throw new CorpusIntegrityError(`${join(directory, MANIFEST)}: not JSON (${e.message})`);
    }
    this.version = this.manifest.corpus_version;
    this.specVersion = this.manifest.spec_version;
    this.counts = Object.fromEntries(this.manifest.files.map((f) => [f.path, f.vectors]));
    this.#verify();
  }

  #all = null;
  #byId = null;

  #verify() {
    const listed = new Map(this.manifest.files.map((f) => [f.path, f]));
    const present = new Set(readdirSync(this.directory).filter((n) => n.endsWith('.json') && n !== MANIFEST));
    const problems = [];
    for (const name of [...listed.keys()].sort()) if (!present.has(name)) problems.push(`${name}: missing (listed in ${MANIFEST})`);
    for (const name of [...present].sort()) if (!listed.has(name)) problems.push(`${name}: extra (not listed in ${MANIFEST})`);
    for (const name of [...listed.keys()].sort().filter((n) => present.has(n))) {
      const data = readFileSync(join(this.directory, name));
      const digest = sha256(data);
      const want = listed.get(name);
      if (data.length !== want.bytes || digest !== want.sha256) {
        problems.push(`${name}: sha256 ${digest} (${data.length} bytes), ${MANIFEST} says ${want.sha256} (${want.bytes} bytes)`);
      }
    }
    if (problems.length) {
      throw new CorpusIntegrityError(`${this.directory} is not corpus ${this.version} as its ${MANIFEST} describes it; `
        + `refusing a tampered or partial copy:\n  ${problems.join('\n  ')}`);
    }
  }

  #vectors() {
    if (this.#all === null) {
      this.#all = [];
      for (const name of Object.keys(this.counts)) {
        const data = JSON.parse(readFileSync(join(this.directory, name), 'utf8'));
        for (const v of data.vectors) this.#all.push(new Vector(v, data.family));
      }
    }
    return this.#all;
  }

  /** The vectors (in manifest file order) matching every filter given; rule: one of the vector's rules. */
  * vectors({ family, era, format, kind, rule } = {}) {
    for (const v of this.#vectors()) {
      if ((family === undefined || v.family === family) && (era === undefined || v.era === era)
        && (format === undefined || v.format === format) && (kind === undefined || v.kind === kind)
        && (rule === undefined || v.raw.rules.includes(rule))) yield v;
    }
  }

  /** The vector with this id; throws when the corpus has none. */
  vector(id) {
    this.#byId ??= new Map(this.#vectors().map((v) => [v.id, v]));
    const v = this.#byId.get(id);
    if (v === undefined) throw new RangeError(`corpus ${this.version} has no vector '${id}'`);
    return v;
  }

  [Symbol.iterator]() { return this.#vectors()[Symbol.iterator](); }

  get size() { return Object.values(this.counts).reduce((a, b) => a + b, 0); }
}

const SCOPED = /^(family|era|format):([a-z0-9][a-z0-9._-]*)$/;
const ID_GLOB = /^[a-z0-9*][a-z0-9._*-]*$/;
const OP = /^(encode|decode|decode\[[a-z0-9]+([.-][a-z0-9]+)*\]|reject|reject-encode)$/;
const SAMPLE_OPS = ['encode', 'decode', 'decode[x]', 'reject', 'reject-encode'];

/** '*' is the only wildcard; the whole name must match. */
const glob = (pattern) => new RegExp(`^${pattern.split('*').map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);

/** A skip file (docs/skip-file.md): `SCOPE  OP-GLOB  reason` lines, the first matching line wins. */
export class SkipList {
  constructor(entries) { this.entries = entries; }

  static load(path) { return SkipList.parse(readFileSync(path, 'utf8'), path); }

  static parse(text, source = '<skip list>') {
    const entries = [];
    text.split(/\r?\n/).forEach((raw, i) => {
      const line = raw.trim();
      if (!line || line.startsWith('#')) return;
      const m = /^(\S+)\s+(\S+)\s+(.*)$/.exec(line);
      if (!m) throw new SkipListError(`${source}:${i + 1}: expected 'SCOPE  OP-GLOB  reason' (the reason is mandatory), got: ${line}`);
      const [, scope, opGlob, reason] = m;
      const scoped = SCOPED.exec(scope);
      if (!scoped && !ID_GLOB.test(scope)) {
        throw new SkipListError(`${source}:${i + 1}: '${scope}' is not a vector id, id glob, family:NAME, era:ERA or format:FORMAT`);
      }
      const op = glob(opGlob);
      if (!OP.test(opGlob.replaceAll('*', 'x')) && !SAMPLE_OPS.some((o) => op.test(o))) {
        throw new SkipListError(`${source}:${i + 1}: '${opGlob}' is not an op or op glob (encode, decode, decode[<label>], reject, reject-encode)`);
      }
      entries.push({ line: i + 1, scope: scoped ? [scoped[1], scoped[2]] : glob(scope), op, reason });
    });
    return new SkipList(entries);
  }

  /** The reason of the first line matching the vector and op name, or null. */
  reason(vector, op) {
    for (const e of this.entries) {
      if (!e.op.test(op)) continue;
      if (Array.isArray(e.scope) ? vector[e.scope[0]] === e.scope[1] : e.scope.test(vector.id)) return e.reason;
    }
    return null;
  }
}
