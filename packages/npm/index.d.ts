// Types of index.js. The corpus files' structure is schema/corpus.schema.json of the conformance suite: `raw`
// and `values` are typed loosely here on purpose (the schema is the contract).

/** Where the corpus in this package lives. */
export const EMBEDDED: string;

export type Kind = 'value' | 'decode-reject' | 'encode-reject';

export interface Filter {
  family?: string;
  era?: string;
  format?: string;
  kind?: Kind;
  /** One of the vector's rules. */
  rule?: string;
}

export class CorpusIntegrityError extends Error {}
export class SkipListError extends Error {}

/** The corpus embedded in this package, or the corpus directory given; verified against its manifest. */
export function load(directory?: string): Corpus;

export class Vector {
  /** The vector's JSON object as it stands in its corpus file. */
  readonly raw: Record<string, unknown>;
  /** The family of the vector's corpus file. */
  readonly family: string;
  readonly id: string;
  readonly kind: Kind;
  readonly era: string;
  /** 'msgpack' when the file gives none. */
  readonly format: string;
  readonly rules: string[];
  readonly level: 'must' | 'should' | 'impl';
  readonly description: string;
  /** The value notation (schema/value.schema.json); null for a decode-reject. */
  readonly values: unknown[] | null;
  /** A frame vector's message kind (format 'frame', spec.md 11); null for the other formats. */
  readonly frame: string | null;
  /** The feature names a frame vector's connection negotiated ([] when none). */
  readonly features: string[];
  /** A frame vector's named fields, in place of values (schema/value.schema.json#/$defs/frame_fields); else null. */
  readonly fields: Record<string, unknown> | null;
  /** The must-reject error class; null for a value vector. */
  readonly error: string | null;
  /** A value vector's canonical bytes; null for the other kinds. */
  readonly canonical: Uint8Array | null;
  /** The bytes a decoder reads: a value's canonical bytes, a decode-reject's bytes; null for an encode-reject. */
  readonly bytes: Uint8Array | null;
  /** label -> bytes: other encodings of a value vector's values ({} for the other kinds). */
  readonly variants: Record<string, Uint8Array>;
  /** The operation names the harness runs and a skip file's OP-GLOB matches. */
  readonly ops: string[];
}

export class Corpus {
  constructor(directory: string);
  readonly directory: string;
  /** The corpus version (the package version). */
  readonly version: string;
  readonly specVersion: string;
  /** SHA-256 (hex) of the manifest.json bytes. */
  readonly manifestSha256: string;
  readonly manifest: Record<string, unknown>;
  /** Corpus file name -> its vector count, from the manifest. */
  readonly counts: Record<string, number>;
  /** Every vector's count. */
  readonly size: number;
  vectors(filter?: Filter): Generator<Vector>;
  /** Throws RangeError when the corpus has no such vector. */
  vector(id: string): Vector;
  [Symbol.iterator](): Iterator<Vector>;
}

export interface SkipEntry {
  line: number;
  scope: [string, string] | RegExp;
  op: RegExp;
  reason: string;
}

/** A skip file (docs/skip-file.md): `SCOPE  OP-GLOB  reason` lines, the first matching line wins. */
export class SkipList {
  constructor(entries: SkipEntry[]);
  readonly entries: SkipEntry[];
  static load(path: string): SkipList;
  static parse(text: string, source?: string): SkipList;
  /** The reason of the first line matching the vector and op name, or null. */
  reason(vector: Vector, op: string): string | null;
}
