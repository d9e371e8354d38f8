/**
 * What the DuckDB file should hold for a set of upstream records, computed independently of the
 * loader (straight from the JSON), and what it does hold (straight from SQL). The storms and the
 * tests share it (test/helpers/mirror.ts adds the assertions).
 */
import { DuckDBInstance } from '@duckdb/node-api';

type Json = Record<string, unknown>;

export interface MirrorFacts {
  /** id → status of jobs not marked deleted */
  jobs: Record<string, string>;
  utterances: number;
  words: number;
  /** kind → sum of billing_time (seconds) of done jobs */
  billing: Record<string, number>;
}

function list(value: unknown): Json[] {
  return Array.isArray(value) ? (value as Json[]) : [];
}

function obj(value: unknown): Json | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
}

/**
 * Every utterance list of a record: transcription, each translation entry, and a pre-recorded job's
 * diarization (a live record that carries one keeps it whole in module_results).
 */
export function utteranceLists(record: Json): Json[][] {
  const result = obj(record['result']);
  if (!result) return [];
  const lists = [list(obj(result['transcription'])?.['utterances'])];
  for (const entry of list(obj(result['translation'])?.['results'])) lists.push(list(entry['utterances']));
  if (record['kind'] === 'pre-recorded') lists.push(list(obj(result['diarization'])?.['results']));
  return lists;
}

export function expectedFacts(records: readonly Json[]): MirrorFacts {
  const facts: MirrorFacts = { jobs: {}, utterances: 0, words: 0, billing: {} };
  for (const record of records) {
    facts.jobs[String(record['id'])] = String(record['status']);
    for (const utterances of utteranceLists(record)) {
      facts.utterances += utterances.length;
      for (const u of utterances) facts.words += list(u['words']).length;
    }
    const billing = obj(obj(record['result'])?.['metadata'])?.['billing_time'];
    if (record['status'] === 'done' && typeof billing === 'number') {
      const kind = String(record['kind']);
      facts.billing[kind] = (facts.billing[kind] ?? 0) + billing;
    }
  }
  return facts;
}

/** One number from a DuckDB file (the first column of the first row), read on a read-only open. */
export async function readCount(dbPath: string, sql: string): Promise<number> {
  const instance = await DuckDBInstance.create(dbPath, { access_mode: 'READ_ONLY' });
  const conn = await instance.connect();
  try {
    const rows = (await conn.runAndReadAll(sql)).getRows();
    return Number(rows[0]?.[0] ?? 0);
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

/** Reads the facts from a DuckDB file with its own connection (read-only). */
export async function actualFacts(
  dbPath: string,
): Promise<MirrorFacts & { duplicateWordKeys: number; duplicateJobs: number }> {
  const instance = await DuckDBInstance.create(dbPath, { access_mode: 'READ_ONLY' });
  const conn = await instance.connect();
  const rows = async (sql: string) => (await conn.runAndReadAll(sql)).getRowObjectsJS() as Json[];
  try {
    const facts: MirrorFacts & { duplicateWordKeys: number; duplicateJobs: number } = {
      jobs: {},
      utterances: 0,
      words: 0,
      billing: {},
      duplicateWordKeys: 0,
      duplicateJobs: 0,
    };
    for (const r of await rows('SELECT id, status FROM jobs WHERE deleted_at IS NULL'))
      facts.jobs[String(r['id'])] = String(r['status']);
    const live = 'job_id IN (SELECT id FROM jobs WHERE deleted_at IS NULL)';
    facts.utterances = Number((await rows(`SELECT count(*) AS n FROM utterances WHERE ${live}`))[0]?.['n']);
    facts.words = Number((await rows(`SELECT count(*) AS n FROM words WHERE ${live}`))[0]?.['n']);
    for (const r of await rows(
      "SELECT kind, sum(billing_time) AS s FROM jobs WHERE deleted_at IS NULL AND status = 'done' GROUP BY kind",
    )) {
      facts.billing[String(r['kind'])] = Number(r['s']);
    }
    facts.duplicateWordKeys = Number(
      (
        await rows(
          'SELECT count(*) AS n FROM (SELECT job_id, source, utterance_idx, word_idx FROM words GROUP BY ALL HAVING count(*) > 1)',
        )
      )[0]?.['n'],
    );
    facts.duplicateJobs = Number(
      (await rows('SELECT count(*) - count(DISTINCT id) AS n FROM jobs'))[0]?.['n'],
    );
    return facts;
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

/** Billing sums compared to the millisecond: floats summed in another order differ in the last bits. */
export function roundBilling(billing: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(billing).map(([k, v]) => [k, Math.round(v * 1000) / 1000]));
}
