/**
 * sql/102 rewrites the views and the summary reports over one filter (counted_jobs) and one macro
 * per figure. Every view, report_jobs and every report must give what it gave before: one file is
 * read as 101 left it, then migrated to 102 and read again. The report queries as they were before
 * 102 are kept in test/fixtures/reports-before-102/.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import type { JobRecord } from '../../../src/simulator/index.js';
import type { Database } from '../../../src/store/database.js';
import { openWriter } from '../../../src/store/open-file.js';
import {
  type BillingParams,
  billingRows,
  errorsReport,
  latencyReport,
  type ReportRange,
  statusReport,
  uncountedJobs,
} from '../../../src/store/statements/reports.js';
import { projectRoot } from '../../../src/util/paths.js';
import { craftJob, smallDataset } from '../../helpers/analytics-data.js';
import { loadRecords } from '../../helpers/load.js';
import { fileTempDir } from '../../helpers/tmp.js';

type Row = Record<string, unknown>;

const VIEWS = [
  'job_facts',
  'billing_daily',
  'billing_monthly',
  'jobs_by_status',
  'latency_daily',
  'errors_by_code',
  'languages',
];
const SUMMARIES = ['report-status', 'report-latency', 'report-errors', 'report-pending'] as const;
// 007 and 008 too: the current loader, which fills the old file, writes their columns.
const BEFORE_102 = [1, 2, 4, 5, 6, 7, 8, 100, 101];

const generated = smallDataset(31, 30);
const records: JobRecord[] = [
  ...generated,
  craftJob(generated, {
    id: 'no-code',
    kind: 'live',
    status: 'error',
    createdAt: '2026-10-22T10:00:00.000Z',
    errorCode: null,
  }),
  craftJob(generated, {
    id: 'gone',
    kind: 'live',
    status: 'error',
    createdAt: '2026-10-20T11:00:00.000Z',
    errorCode: 503,
  }),
  craftJob(generated, { id: 'gone-done', kind: 'pre-recorded', createdAt: '2026-10-20T12:00:00.000Z' }),
];

/** Every combination of the report filters: no range and a range, both kinds and one, deleted in or out. */
const FILTERS = [
  { from: null, before: null },
  { from: '2026-10-01T00:00:00.000Z', before: '2026-10-21T00:00:00.000Z' },
].flatMap((range) =>
  [null, 'live'].flatMap((kind) =>
    [false, true].map((include_deleted) => ({ ...range, kind, include_deleted })),
  ),
);

function paramsOf(name: string, filter: (typeof FILTERS)[number], by: string, date: string): Row {
  if (name === 'report-latency') return { ...filter, by };
  if (name === 'report-pending') return { ...filter, date };
  if (name === 'report-billing')
    return { ...filter, by, date, g1: 'kind', g2: 'model', g3: null, prices: null };
  return filter;
}

type ReportFile = (typeof SUMMARIES)[number] | 'report-billing';
type ReadReport = (name: ReportFile, params: Row) => Promise<Row[]>;

/** Each report statement as the code runs it now, by the name of its file. */
function reportsNow(db: Database): ReadReport {
  return async (name, params) => {
    switch (name) {
      case 'report-status':
        return statusReport(db, params as ReportRange);
      case 'report-latency':
        return latencyReport(db, params as ReportRange & { by: string });
      case 'report-errors':
        return errorsReport(db, params as ReportRange);
      case 'report-pending':
        return [await uncountedJobs(db, params as ReportRange & { date: string })];
      case 'report-billing':
        return billingRows(db, params as BillingParams);
    }
  };
}

/** What the views, report_jobs and the reports give, by a name per query and parameters. */
async function readAll(db: Database, report: ReadReport): Promise<Map<string, Row[]>> {
  const out = new Map<string, Row[]>();
  for (const view of VIEWS) out.set(view, await db.all(`SELECT * FROM ${view} ORDER BY ALL`));
  out.set(
    'report_jobs columns',
    await db.all("DESCRIBE SELECT * FROM report_jobs('created', NULL, NULL, NULL, false)"),
  );
  for (const date of ['created', 'completed']) {
    out.set(
      `report_jobs ${date}`,
      await db.all(
        `SELECT * EXCLUDE (request_params, custom_metadata) FROM report_jobs($date, NULL, NULL, NULL, true) ORDER BY ALL`,
        { date },
      ),
    );
  }
  for (const name of [...SUMMARIES, 'report-billing'] as const) {
    for (const filter of FILTERS) {
      for (const by of ['day', 'month']) {
        for (const date of ['created', 'completed']) {
          // A report that takes neither `by` nor `date` is asked once per filter.
          const params = paramsOf(name, filter, by, date);
          const key = `${name} ${JSON.stringify(params)}`;
          if (!out.has(key)) out.set(key, await report(name, params));
        }
      }
    }
  }
  return out;
}

describe('sql/102: the report filter and the figures written once', () => {
  const temp = fileTempDir('tsync-sql-macros-');
  afterAll(() => temp.remove());

  test('every view, report_jobs and every report give the same rows before and after the migration', async () => {
    const path = join(temp.dir, 'macros.duckdb');
    const old = await openWriter(path, { migrations: BEFORE_102 });
    let before: Map<string, Row[]>;
    try {
      await old.transaction(() => loadRecords(old, records, new Date()));
      await old.run("UPDATE jobs SET deleted_at = now() WHERE id IN ('gone', 'gone-done')");
      const fixtures = join(projectRoot(), 'test', 'fixtures', 'reports-before-102');
      const now = reportsNow(old);
      before = await readAll(old, (name, params) =>
        name === 'report-billing'
          ? now(name, params)
          : old.all(readFileSync(join(fixtures, `${name}.sql`), 'utf8'), params),
      );
    } finally {
      await old.close();
    }
    const db = await openWriter(path);
    try {
      const [applied] = await db.all<{ n: number }>(
        'SELECT count(*)::INTEGER AS n FROM schema_migrations WHERE version = 102',
      );
      expect(applied?.n).toBe(1);
      const after = await readAll(db, reportsNow(db));
      // The comparison sees real figures: every view has rows, and so do most reports.
      for (const view of VIEWS) expect(before.get(view)?.length, view).toBeGreaterThan(0);
      const filled = [...before.values()].filter((rows) => rows.length > 0).length;
      expect(filled).toBeGreaterThan(0.9 * before.size);
      expect(before.size).toBe(90);
      expect([...after.keys()]).toEqual([...before.keys()]);
      for (const [key, rows] of before) expect(after.get(key), key).toEqual(rows);
    } finally {
      await db.close();
    }
  });
});
