/**
 * Every file of sql/queries/ by name, and its text, each run by one typed function of this folder
 * (test/unit/store/store-queries.test.ts checks the list, the folder and the functions agree).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sqlDir } from '../../util/paths.js';

export const QUERIES = [
  'checkpoint-add',
  'checkpoint-load',
  'checkpoint-save',
  'compact-copy-records',
  'compact-copy-tables',
  'compact-counts',
  'compact-job-batches',
  'compact-runs-count',
  'compact-small-row-groups',
  'demo-by-status',
  'demo-hours',
  'demo-latest',
  'erase-content',
  'erase-jobs',
  'erase-preview',
  'erase-quarantined',
  'erase-record',
  'erase-rewritten',
  'erase-select',
  'erase-tombstoned-loaded',
  'erase-tombstones-count',
  'erase-tombstones-forget',
  'erase-unwritten',
  'export-jobs',
  'export-module-results',
  'export-partitions',
  'export-utterances',
  'export-words',
  'freshness-run',
  'jobs-count-kind',
  'jobs-pending',
  'merge-batch-last',
  'merge-batch-move',
  'merge-batch-pick',
  'merge-records-batches',
  'merge-records-copy',
  'merge-records-delete',
  'merge-small-row-groups',
  'publish-billing-daily',
  'publish-billing-monthly',
  'publish-file-rows',
  'publish-fingerprints',
  'publish-jobs-raw',
  'publish-kinds',
  'quarantine-list',
  'quarantine-resolve-hashes',
  'quarantine-resolve-jobs',
  'quarantine-set-errors',
  'quarantine-unresolved-count',
  'quarantine-unresolved',
  'quarantine-upsert',
  'report-as-of',
  'report-billing',
  'report-errors',
  'report-latency',
  'report-pending',
  'report-quarantined',
  'report-status',
  'runs-last-outcome',
  'runs-list',
  'seen-add',
  'seen-count-unseen',
  'seen-create',
  'seen-drop',
  'seen-mark-deleted',
  'seen-mark-expired',
  'status-freshness',
  'status-kinds',
  'status-pending-stale',
  'sync-last-ok-run',
  'sync-run-finish',
  'sync-run-start',
  'sync-runs-abandon',
  'verify-jobs-duplicate-ids',
  'verify-modules-orphans',
  'verify-records-hash-mismatch',
  'verify-records-orphans',
  'verify-records-per-job',
  'verify-repair-broken',
  'verify-repair-drop-jobs',
  'verify-repair-erased',
  'verify-repair-orphans',
  'verify-repair-runs',
  'verify-runs-duplicates',
  'verify-utterances-duplicates',
  'verify-utterances-orphans',
  'verify-words-duplicates',
  'verify-words-orphans',
] as const;

export type QueryName = (typeof QUERIES)[number];

const NAMES: ReadonlySet<string> = new Set(QUERIES);
const texts = new Map<string, string>();

/** The text of sql/queries/<name>.sql, read once per process. */
export function queryText(name: QueryName): string {
  // The type keeps names to the list; this guards what a cast or plain JavaScript lets through.
  if (!NAMES.has(name)) throw new Error(`bad query name "${name}"`);
  return sqlText('queries', name);
}

/** The text of sql/<folder>/<name>.sql, read once per process (queryText, loadSql). */
export function sqlText(folder: 'queries' | 'load', name: string): string {
  const key = `${folder}/${name}`;
  const text = texts.get(key) ?? readFileSync(join(sqlDir(), folder, `${name}.sql`), 'utf8');
  texts.set(key, text);
  return text;
}

/** `columns` of the first of `rows` as numbers; 0 when there is no row or a value is null. */
export async function countsOf<K extends string>(
  rows: Promise<Record<K, unknown>[]>,
  ...columns: K[]
): Promise<Record<K, number>> {
  const [row] = await rows;
  const counts = columns.map((column) => [column, Number(row?.[column] ?? 0)]);
  return Object.fromEntries(counts) as Record<K, number>;
}

export async function countOf<K extends string>(
  rows: Promise<Record<K, unknown>[]>,
  column: K,
): Promise<number> {
  return (await countsOf(rows, column))[column];
}

/**
 * `keys` of `params` and no other: DuckDB refuses a named value its statement does not name, and a
 * caller's object may hold more than the statement takes.
 */
export function only<T extends object, K extends keyof T>(params: T, ...keys: K[]): Pick<T, K> {
  return Object.fromEntries(keys.map((key) => [key, params[key]])) as Pick<T, K>;
}
