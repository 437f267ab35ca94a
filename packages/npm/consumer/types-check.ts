// Compiled (not run) by tests/test_packages_npm.py with tsc --strict against the installed package's index.d.ts:
// a typed consumer's use of every export.
import { Corpus, CorpusIntegrityError, EMBEDDED, Filter, Kind, load, SkipList, SkipListError, Vector } from 'ignite-wire-corpus';

const corpus: Corpus = load(EMBEDDED);
const filter: Filter = { family: 'int', era: 'msgpack', format: 'msgpack', kind: 'value', rule: 'MP-INT-CANON' };
const versions: [string, string, string] = [corpus.version, corpus.specVersion, corpus.manifestSha256];
const perFile: number = corpus.counts['int.json'] + corpus.size;
const skips: SkipList = SkipList.parse('int.fixint.p1  decode  why\n', 'skips.txt');

for (const v of corpus.vectors(filter)) {
  const kind: Kind = v.kind;
  const bytes: Uint8Array | null = v.kind === 'encode-reject' ? null : v.bytes;
  const canonical: Uint8Array | null = v.canonical;
  const variants: Record<string, Uint8Array> = v.variants;
  const reason: string | null = skips.reason(v, v.ops[0]);
  const facts: string[] = [v.id, v.family, v.era, v.format, v.level, v.description, ...v.rules, v.error ?? ''];
  void [kind, bytes, canonical, variants, reason, facts, v.values, v.raw];
}
const one: Vector = corpus.vector('int.fixint.p0');
const all: Vector[] = [...corpus];
try {
  load('/nowhere');
} catch (e) {
  const message: string = e instanceof CorpusIntegrityError || e instanceof SkipListError ? e.message : String(e);
  void message;
}
void [versions, perFile, one, all];
