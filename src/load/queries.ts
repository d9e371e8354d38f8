/**
 * Every file of sql/queries/, by name (without `.sql`). `db.query(name)` takes only these names, so
 * a typo is a compile error; test/store-queries.test.ts checks that this list and the folder agree.
 */
export const QUERIES = [
  'checkpoint-load',
  'checkpoint-save',
  'compact-counts',
  'compact-small-row-groups',
  'demo-by-status',
  'demo-hours',
  'demo-latest',
  'export-jobs',
  'export-module-results',
  'export-utterances',
  'export-words',
  'jobs-count-kind',
  'jobs-pending',
  'publish-billing-daily',
  'publish-billing-monthly',
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
  'seen-mark-deleted',
  'status-kinds',
  'status-pending-stale',
  'sync-last-ok-run',
  'sync-run-finish',
  'sync-run-start',
  'verify-jobs-duplicate-ids',
  'verify-jobs-hash-mismatch',
  'verify-modules-orphans',
  'verify-repair-broken',
  'verify-repair-drop-jobs',
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

/** For names that arrive as text (a reader's request over the socket): true when it is a listed query. */
export function isQueryName(name: string): name is QueryName {
  return NAMES.has(name);
}
