/**
 * Property tests of validation and loading on arbitrary and mutated records: every record ends up
 * either loaded (its job row holds its exact JSON, with all its utterances and words) or in the
 * quarantine with its raw JSON; a batch never throws and never loads half of a job.
 * fast-check prints the seed and the shrunk counterexample of a failure.
 */
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentHash, validateJobRecord } from '../../../src/normalize/page-records.js';
import { generateDataset } from '../../../src/simulator/index.js';
import type { Database } from '../../../src/store/database.js';
import { openWriter } from '../../../src/store/open-file.js';
import { loadRecords } from '../../helpers/load.js';
import { utteranceLists } from '../../helpers/mirror.js';
import { batchArb } from '../../helpers/mutate-record.js';
import { fileTempDir } from '../../helpers/tmp.js';

type Json = Record<string, unknown>;

const BASES = generateDataset({
  seed: 41,
  preRecorded: 10,
  live: 10,
  utterancesPerJob: 3,
  wordsPerUtterance: 3,
});
const folder = fileTempDir('tsync-fuzz-');
let db: Database;
let runs = 0;

beforeAll(async () => {
  db = await openWriter(join(folder.dir, 'fuzz.duckdb'));
});
afterAll(async () => {
  await db.close();
  folder.remove();
});

function childCounts(record: Json): { utterances: number; words: number } {
  const utterances = utteranceLists(record).flat();
  return {
    utterances: utterances.length,
    words: utterances.reduce((n, u) => n + (Array.isArray(u['words']) ? u['words'].length : 0), 0),
  };
}

async function count(sql: string, params: Record<string, unknown>): Promise<number> {
  const rows = await db.all<{ n: number }>(sql, params);
  return Number(rows[0]?.n ?? 0);
}

/** Row counts of `table` per value of `column` among `keys` (one query, keys bound as a list). */
async function countsBy(
  table: string,
  column: string,
  keys: readonly string[],
): Promise<Map<string, number>> {
  if (keys.length === 0) return new Map(); // an empty list binds as LIST(ANY), which DuckDB refuses
  const rows = await db.all<{ key: string; n: number }>(
    `SELECT ${column} AS key, count(*) AS n FROM ${table} WHERE list_contains($keys, ${column}) GROUP BY ${column}`,
    { keys },
  );
  return new Map(rows.map((r) => [r.key, Number(r.n)]));
}

/**
 * What the batch must leave behind, checked with bound parameters (ids may hold quotes, NULs,
 * surrogates). Each table is asked once for the whole batch: the run's records are few, the table
 * holds every earlier run's, and a query per record cost more than the load it checks.
 */
async function expectOutcome(batch: readonly unknown[], tag: string): Promise<void> {
  const loaded = new Map<string, Json>();
  const quarantined: unknown[] = [];
  for (const raw of batch) {
    const checked = validateJobRecord(raw);
    if (checked.ok) loaded.set(checked.record.id, raw as Json);
    else quarantined.push(raw);
  }
  // Never half a job: a record that failed leaves no row and no children under its (unique) id.
  const failedIds = quarantined
    .map((raw) => (raw as Json | null)?.['id'])
    .filter((id): id is string => typeof id === 'string' && id.startsWith(`${tag}-`) && !loaded.has(id));
  const ids = [...loaded.keys(), ...failedIds];
  const hashes =
    ids.length === 0
      ? []
      : await db.all<{ id: string; content_hash: string }>(
          'SELECT id, content_hash FROM jobs WHERE list_contains($ids, id)',
          { ids },
        );
  const utterances = await countsBy('utterances', 'job_id', ids);
  const words = await countsBy('words', 'job_id', ids);
  for (const [id, raw] of loaded) {
    expect(
      hashes.filter((r) => r.id === id).map((r) => r.content_hash),
      `job ${JSON.stringify(id)}`,
    ).toEqual([contentHash(JSON.stringify(raw))]);
    const expected = childCounts(raw);
    expect(utterances.get(id) ?? 0, `utterances of ${JSON.stringify(id)}`).toBe(expected.utterances);
    expect(words.get(id) ?? 0, `words of ${JSON.stringify(id)}`).toBe(expected.words);
  }
  for (const id of failedIds) {
    expect(
      hashes.filter((r) => r.id === id),
      `job row of the quarantined ${JSON.stringify(id)}`,
    ).toEqual([]);
    expect(utterances.get(id) ?? 0, `utterances of the quarantined ${JSON.stringify(id)}`).toBe(0);
    expect(words.get(id) ?? 0, `words of the quarantined ${JSON.stringify(id)}`).toBe(0);
  }
  const texts = quarantined.map((raw) => JSON.stringify(raw));
  const held =
    texts.length === 0
      ? []
      : await db.all<{ raw_hash: string; raw: string }>(
          'SELECT raw_hash, raw FROM quarantine WHERE list_contains($hashes, raw_hash)',
          { hashes: texts.map((text) => contentHash(text)) },
        );
  for (const [i, raw] of quarantined.entries()) {
    const text = texts[i] ?? '';
    const rows = held.filter((r) => r.raw_hash === contentHash(text));
    expect(rows, `quarantine row of ${text.slice(0, 200)}`).toHaveLength(1);
    expect(JSON.parse(rows[0]?.raw ?? 'null')).toEqual(raw);
  }
}

describe('fuzzed records', () => {
  it('validation answers every JSON value with a record or a list of problems, never a throw', () => {
    const anyRecord = fc.oneof(
      fc.jsonValue(),
      fc.dictionary(
        fc.constantFrom('id', 'kind', 'status', 'created_at', 'result', 'file', 'request_params'),
        fc.jsonValue({ maxDepth: 4 }),
      ),
    );
    fc.assert(
      fc.property(anyRecord, (raw) => {
        const checked = validateJobRecord(raw);
        if (!checked.ok) {
          expect(checked.errors.length).toBeGreaterThan(0);
          for (const problem of checked.errors) expect(typeof problem.path).toBe('string');
        }
      }),
      { numRuns: 500 },
    );
  });

  it('loads each mutated record whole or quarantines it with its raw JSON, and the batch never fails', async () => {
    await fc.assert(
      // Batches of up to 12: each load and its checks cost about as much as its records.
      fc.asyncProperty(batchArb(BASES, 12), async (makeBatch) => {
        runs += 1;
        const tag = `run${runs}`;
        const batch = makeBatch(tag);
        await loadRecords(db, batch);
        await expectOutcome(batch, tag);
      }),
      { numRuns: 10 },
    );
    // The properties were exercised on both sides: records loaded and records quarantined. How many
    // of each depends on fast-check's seed, so the check is that neither side was empty.
    expect(await count('SELECT count(*) AS n FROM jobs', {})).toBeGreaterThan(0);
    expect(await count('SELECT count(*) AS n FROM quarantine', {})).toBeGreaterThan(0);
    expect(await count('SELECT count(*) AS n FROM words WHERE job_id NOT IN (SELECT id FROM jobs)', {})).toBe(
      0,
    );
  });

  it('loads the same mutated batch again as unchanged, adding no row and no quarantine entry', async () => {
    await fc.assert(
      fc.asyncProperty(batchArb(BASES, 12), async (makeBatch) => {
        runs += 1;
        const batch = makeBatch(`again${runs}`);
        await loadRecords(db, batch);
        const tables = ['jobs', 'utterances', 'words', 'module_results', 'quarantine'];
        const before = await Promise.all(tables.map((t) => count(`SELECT count(*) AS n FROM ${t}`, {})));
        const again = await loadRecords(db, batch);
        expect(again.inserted + again.updated).toBe(0);
        expect(await Promise.all(tables.map((t) => count(`SELECT count(*) AS n FROM ${t}`, {})))).toEqual(
          before,
        );
      }),
      { numRuns: 4 },
    );
  });
});
