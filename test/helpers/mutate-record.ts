/**
 * fast-check arbitraries of broken job records: valid generated records with a few mutations
 * applied at random places (a field dropped, nulled, replaced by arbitrary JSON, retyped, a huge or
 * unpaired-surrogate string, nested garbage, a bad instant, a number out of range), and bare junk.
 * Each comes out of a JSON round trip, as it would off the wire.
 */
import fc from 'fast-check';
import type { JobRecord } from '../../src/simulator/index.js';

type Path = (string | number)[];

/** The surrogates (U+D800 to U+DFFF), which fast-check's 'binary' unit leaves out. */
const SURROGATES = 0xe000 - 0xd800;

/**
 * One code point, as fast-check's 'binary' unit draws it (the same values from the same seed, and
 * the same shrinking): the i-th of the code points without the surrogates. That unit builds a
 * map of all 1,112,064 of them back to their index the first time a process asks for it (about
 * 1 CPU-s); this one computes the index.
 */
const CODE_POINT = fc.nat({ max: 0x10ffff - SURROGATES }).map(
  (i) => String.fromCodePoint(i < 0xd800 ? i : i + SURROGATES),
  (value) => {
    const cp = typeof value === 'string' ? value.codePointAt(0) : undefined;
    if (cp === undefined || String.fromCodePoint(cp) !== value || (cp >= 0xd800 && cp < 0xe000)) {
      throw new Error('not one code point of the unit');
    }
    return cp < 0xd800 ? cp : cp - SURROGATES;
  },
);

/** Strings of up to `maxLength` code points of any plane: fc.string({ unit: 'binary', maxLength }). */
export function binaryString(maxLength: number): fc.Arbitrary<string> {
  return fc.string({ unit: CODE_POINT, maxLength });
}

export type Mutation =
  | { readonly op: 'drop' | 'null' | 'retype'; readonly at: number }
  | { readonly op: 'replace'; readonly at: number; readonly value: unknown }
  | { readonly op: 'huge'; readonly at: number; readonly size: number }
  | { readonly op: 'garbage'; readonly at: number; readonly depth: number }
  | { readonly op: 'head'; readonly key: string; readonly value: unknown };

/** Values worth trying in the fields every record must have right (id, kind, status, instants). */
const HEAD_VALUES = fc.oneof(
  fc.constantFrom(
    null,
    '',
    ' ',
    0,
    'done',
    'finished',
    'live',
    'podcast',
    '2024-02-30T00:00:00Z',
    '2024-01-01T24:00:00Z',
    '0000-01-01T00:00:00Z',
    '9999-12-31T23:59:59.999Z',
    '2024-01-01T10:00:00.123456789+14:00',
    '2024-01-01 10:00:00',
    'yesterday at noon',
    "'; DROP TABLE jobs; --",
  ),
  fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
  binaryString(20),
);

const NUMBERS = fc.constantFrom(2_147_483_647, 2_147_483_648, -2_147_483_649, 1e308, -0, 5e-324, 0.5, -1);

export const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ op: fc.constantFrom('drop', 'null', 'retype'), at: fc.nat() }),
  fc.record({
    op: fc.constant('replace'),
    at: fc.nat(),
    value: fc.oneof(fc.jsonValue({ maxDepth: 3 }), binaryString(40), NUMBERS),
  }),
  fc.record({ op: fc.constant('huge'), at: fc.nat(), size: fc.integer({ min: 10_000, max: 100_000 }) }),
  fc.record({ op: fc.constant('garbage'), at: fc.nat(), depth: fc.integer({ min: 1, max: 300 }) }),
  fc.record({
    op: fc.constant('head'),
    key: fc.constantFrom(
      'id',
      'kind',
      'status',
      'created_at',
      'completed_at',
      'version',
      'error_code',
      'custom_metadata',
      'result',
      'file',
    ),
    value: HEAD_VALUES,
  }),
) as fc.Arbitrary<Mutation>;

/** Every path below the root, in document order. */
function pathsOf(value: unknown, prefix: Path = [], out: Path[] = []): Path[] {
  if (typeof value !== 'object' || value === null) return out;
  for (const key of Array.isArray(value) ? value.keys() : Object.keys(value)) {
    const path = [...prefix, key];
    out.push(path);
    pathsOf((value as Record<string | number, unknown>)[key], path, out);
  }
  return out;
}

function retyped(value: unknown): unknown {
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return Number.isNaN(Number(value)) ? value.length : Number(value);
  if (typeof value === 'boolean') return value ? 'true' : 0;
  if (Array.isArray(value)) return Object.fromEntries(value.map((v, i) => [String(i), v]));
  if (value !== null && typeof value === 'object') return Object.values(value);
  return 'null';
}

/** Applies one mutation in place; the record may stop being an object only through 'replace' at its root (never). */
export function applyMutation(record: Record<string, unknown>, mutation: Mutation): void {
  if (mutation.op === 'head') {
    record[mutation.key] = mutation.value;
    return;
  }
  const paths = pathsOf(record);
  const path = paths[mutation.at % paths.length];
  if (!path) return;
  const parent = path
    .slice(0, -1)
    .reduce<unknown>((node, key) => (node as Record<string | number, unknown>)[key], record) as Record<
    string | number,
    unknown
  >;
  const key = path.at(-1) as string | number;
  switch (mutation.op) {
    case 'drop':
      if (Array.isArray(parent)) parent.splice(Number(key), 1);
      else delete parent[key];
      return;
    case 'null':
      parent[key] = null;
      return;
    case 'retype':
      parent[key] = retyped(parent[key]);
      return;
    case 'replace':
      parent[key] = mutation.value;
      return;
    case 'huge':
      parent[key] = 'ü€𝄞'.repeat(Math.ceil(mutation.size / 3));
      return;
    case 'garbage': {
      let nest: unknown = { '': [null, { '\u0000': 'x' }] };
      for (let i = 0; i < mutation.depth; i++) nest = i % 2 ? [nest] : { [`k${i}`]: nest };
      parent[key] = nest;
      return;
    }
  }
}

export interface BatchItem {
  /** The record as the loader gets it: JSON off the wire. */
  readonly raw: unknown;
}

/**
 * Batches of 1 to `maxItems` items: mostly mutated copies of `bases` (0-3 mutations each, so some stay valid),
 * sometimes bare JSON junk. Ids are made unique per batch with `tag`, before any mutation.
 */
export function batchArb(
  bases: readonly JobRecord[],
  maxItems = 6,
): fc.Arbitrary<(tag: string) => unknown[]> {
  const item = fc.oneof(
    {
      weight: 6,
      arbitrary: fc.record({
        base: fc.nat(bases.length - 1),
        mutations: fc.array(mutationArb, { maxLength: 3 }),
      }),
    },
    { weight: 1, arbitrary: fc.record({ junk: fc.jsonValue({ maxDepth: 3 }) }) },
  );
  return fc.array(item, { minLength: 1, maxLength: maxItems }).map(
    (items) => (tag: string) =>
      items.map((entry, i) => {
        if ('junk' in entry) return JSON.parse(JSON.stringify(entry.junk ?? null)) as unknown;
        const record = structuredClone(bases[entry.base]) as Record<string, unknown>;
        record['id'] = `${tag}-${i}-${String(record['id'])}`;
        for (const mutation of entry.mutations) applyMutation(record, mutation);
        return JSON.parse(JSON.stringify(record)) as unknown;
      }),
  );
}
