/**
 * Job-by-job comparison of a DuckDB file with the simulator's records, returned as a list of
 * readable differences (empty: the mirror is exact). Expected figures come straight from the JSON
 * (./mirror.ts), actual ones straight from SQL on a read-only open; nothing goes through the loader.
 *
 * - 'exact' (after a --full run): the live jobs are exactly the simulator's, each with its status,
 *   its record byte for byte (the hash of its JSON), its utterance and word counts; billing sums per
 *   kind agree; every other stored job is one the simulator deleted, marked deleted.
 * - 'incremental' (after an incremental run): every upstream job is there, live, with its status;
 *   content may lag for old jobs edited upstream (only --full walks them), and deletions are not
 *   marked yet, but no stored job may be one the service never had.
 * Both: no duplicate keys and no child row without its job.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { DuckDBInstance } from '@duckdb/node-api';
import { contentHash } from '../../../src/normalize/page-records.js';
import { expectedFacts, roundBilling, utteranceLists } from './mirror-facts.js';

type Json = Record<string, unknown>;

interface StoredJob {
  status: string;
  hash: string;
  deleted: boolean;
}

export interface Stored {
  jobs: Map<string, StoredJob>;
  utterances: Map<string, number>;
  words: Map<string, number>;
  billing: Record<string, number>;
  duplicates: Record<string, number>;
  orphans: Record<string, number>;
}

const DUPLICATES: Record<string, string> = {
  jobs: 'SELECT count(*) - count(DISTINCT id) AS n FROM jobs',
  utterances:
    'SELECT count(*) AS n FROM (SELECT job_id, source, utterance_idx FROM utterances GROUP BY ALL HAVING count(*) > 1)',
  words:
    'SELECT count(*) AS n FROM (SELECT job_id, source, utterance_idx, word_idx FROM words GROUP BY ALL HAVING count(*) > 1)',
  quarantine: 'SELECT count(*) - count(DISTINCT raw_hash) AS n FROM quarantine',
};

/** Children must belong to a stored job: a job row exists iff its children do. */
const ORPHANS: Record<string, string> = {
  utterances: 'SELECT count(*) AS n FROM utterances WHERE job_id NOT IN (SELECT id FROM jobs)',
  words: 'SELECT count(*) AS n FROM words WHERE job_id NOT IN (SELECT id FROM jobs)',
  module_results: 'SELECT count(*) AS n FROM module_results WHERE job_id NOT IN (SELECT id FROM jobs)',
  wordless:
    'SELECT count(*) AS n FROM words w WHERE NOT EXISTS (SELECT 1 FROM utterances u WHERE u.job_id = w.job_id AND u.source = w.source AND u.utterance_idx = w.utterance_idx)',
};

/** A read-only open that waits (up to 60 s) while a writer (a worker's run) holds the file. */
async function openReadOnly(dbPath: string): Promise<DuckDBInstance> {
  for (let waited = 0; ; waited += 100) {
    try {
      return await DuckDBInstance.create(dbPath, { access_mode: 'READ_ONLY' });
    } catch (error) {
      if (waited > 60_000 || !/lock/i.test(String(error))) throw error;
      await sleep(100);
    }
  }
}

export async function readStored(dbPath: string): Promise<Stored> {
  const instance = await openReadOnly(dbPath);
  const conn = await instance.connect();
  const rows = async (sql: string) => (await conn.runAndReadAll(sql)).getRowObjectsJS() as Json[];
  const count = async (sql: string) => Number((await rows(sql))[0]?.['n'] ?? 0);
  try {
    const stored: Stored = {
      jobs: new Map(),
      utterances: new Map(),
      words: new Map(),
      billing: {},
      duplicates: {},
      orphans: {},
    };
    for (const r of await rows(
      'SELECT id, status, content_hash, deleted_at IS NOT NULL AS deleted FROM jobs',
    )) {
      stored.jobs.set(String(r['id']), {
        status: String(r['status']),
        hash: String(r['content_hash']),
        deleted: r['deleted'] === true,
      });
    }
    for (const r of await rows('SELECT job_id, count(*) AS n FROM utterances GROUP BY job_id'))
      stored.utterances.set(String(r['job_id']), Number(r['n']));
    for (const r of await rows('SELECT job_id, count(*) AS n FROM words GROUP BY job_id'))
      stored.words.set(String(r['job_id']), Number(r['n']));
    for (const r of await rows(
      "SELECT kind, sum(billing_time) AS s FROM jobs WHERE deleted_at IS NULL AND status = 'done' GROUP BY kind",
    )) {
      stored.billing[String(r['kind'])] = Number(r['s']);
    }
    for (const [name, sql] of Object.entries(DUPLICATES)) stored.duplicates[name] = await count(sql);
    for (const [name, sql] of Object.entries(ORPHANS)) stored.orphans[name] = await count(sql);
    return stored;
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

/** At most this many differences are listed; a broken mirror usually breaks everywhere at once. */
const MAX_LISTED = 15;

export async function mirrorDifferences(
  dbPath: string,
  records: readonly Json[],
  deletedUpstream: ReadonlySet<string>,
  mode: 'exact' | 'incremental',
): Promise<string[]> {
  const stored = await readStored(dbPath);
  const out: string[] = [];
  const upstream = new Set<string>();
  for (const record of records) {
    const id = String(record['id']);
    upstream.add(id);
    out.push(...jobDifferences(id, record, stored, mode));
  }
  for (const [id, job] of stored.jobs) {
    if (upstream.has(id)) continue;
    if (!deletedUpstream.has(id)) out.push(`job ${id} is stored but the service never listed it`);
    else if (mode === 'exact' && !job.deleted)
      out.push(`job ${id} was deleted upstream but is not marked deleted`);
  }
  if (mode === 'exact') {
    const expected = roundBilling(expectedFacts(records).billing);
    const actual = roundBilling(stored.billing);
    if (JSON.stringify(sorted(expected)) !== JSON.stringify(sorted(actual))) {
      out.push(
        `billing sums differ: expected ${JSON.stringify(sorted(expected))}, stored ${JSON.stringify(sorted(actual))}`,
      );
    }
  }
  for (const [name, n] of Object.entries(stored.duplicates))
    if (n > 0) out.push(`${n} duplicate keys in ${name}`);
  for (const [name, n] of Object.entries(stored.orphans)) if (n > 0) out.push(`${n} orphan rows (${name})`);
  return out.length > MAX_LISTED
    ? [...out.slice(0, MAX_LISTED), `... and ${out.length - MAX_LISTED} more`]
    : out;
}

function jobDifferences(id: string, record: Json, stored: Stored, mode: 'exact' | 'incremental'): string[] {
  const job = stored.jobs.get(id);
  if (!job) return [`job ${id} (${String(record['status'])}) is missing`];
  const out: string[] = [];
  if (job.deleted) out.push(`job ${id} is listed upstream but marked deleted`);
  if (job.status !== record['status'])
    out.push(`job ${id} is ${job.status}, upstream ${String(record['status'])}`);
  if (mode === 'incremental') return out;
  if (job.hash !== contentHash(JSON.stringify(record)))
    out.push(`job ${id} holds an older record than upstream`);
  const lists = utteranceLists(record);
  const utterances = lists.reduce((n, list) => n + list.length, 0);
  const words = lists.flat().reduce((n, u) => n + (Array.isArray(u['words']) ? u['words'].length : 0), 0);
  if ((stored.utterances.get(id) ?? 0) !== utterances)
    out.push(`job ${id} has ${stored.utterances.get(id) ?? 0} utterances, upstream ${utterances}`);
  if ((stored.words.get(id) ?? 0) !== words)
    out.push(`job ${id} has ${stored.words.get(id) ?? 0} words, upstream ${words}`);
  return out;
}

function sorted(record: Record<string, number>): [string, number][] {
  return Object.entries(record).sort(([a], [b]) => a.localeCompare(b));
}
