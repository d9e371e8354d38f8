import { readdirSync, readFileSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { writeBillingReport, writeRecentBillingReports } from '../../../src/analytics/billing-files.js';
import { billingFileSettings } from '../../../src/config/sync-defaults.js';
import type { JobRecord } from '../../../src/simulator/index.js';
import type { Database } from '../../../src/store/database.js';
import { openReadOnly } from '../../../src/store/open-file.js';
import {
  craftJob,
  expectedBilling,
  loadedDatabase,
  loadRecords,
  recordSyncs,
  smallDataset,
} from '../../helpers/analytics-data.js';
import { tempDir } from '../../helpers/tmp.js';

const generated = smallDataset(31, 50);
const lateEvening = craftJob(generated, {
  id: 'late-evening',
  kind: 'live',
  createdAt: '2026-10-31T23:59:59.999Z',
  billingTime: 5400,
});
const records: JobRecord[] = [...generated, lateEvening];

const db = loadedDatabase('report-files', records);
const SYNCED = new Date('2026-11-01T06:00:00Z');
beforeAll(() => recordSyncs(db, SYNCED));
/** Soon after the sync: the mirror is fresh. */
const NOW = new Date('2026-11-01T07:00:00Z');
const DAY = 'billing-report-files-day-2026-10-31-all';
/** The worker's report settings with no flag and no environment. */
const DEFAULTS = billingFileSettings();

/** The CSV's data lines: comment lines (markers) and the total row left out. */
function dataLines(csv: string): string[] {
  return csv
    .trimEnd()
    .split('\n')
    .filter((line) => !line.startsWith('#') && !line.startsWith('total,'));
}

async function withReader<T>(fn: (database: Database) => Promise<T>): Promise<T> {
  const database = await openReadOnly(db);
  try {
    return await fn(database);
  } finally {
    await database.close();
  }
}

const OLD = new Date('2001-01-01T00:00:00Z');

/** The billing files of 2026-10-31 written into `dir` with `settings`, as of NOW. */
function writeDay(dir: string, settings: typeof DEFAULTS) {
  return withReader((database) =>
    writeBillingReport({ db: database, dir, by: 'day', period: '2026-10-31', now: NOW, settings }),
  );
}

describe('scheduled billing report files', () => {
  test("writes the CSV and HTML of a day, named by database, period and kind, with that day's figures", async () => {
    const dir = tempDir();
    const result = await withReader((database) =>
      writeBillingReport({
        db: database,
        dir,
        by: 'day',
        period: '2026-10-31',
        now: NOW,
        settings: DEFAULTS,
      }),
    );
    expect(result.files.map((f) => [f.path, f.written])).toEqual([
      [join(dir, `${DAY}.csv`), true],
      [join(dir, `${DAY}.html`), true],
    ]);
    expect(readdirSync(dir).sort()).toEqual([`${DAY}.csv`, `${DAY}.html`]);
    const expected = expectedBilling(records, 'day', {
      from: '2026-10-31T00:00:00Z',
      before: '2026-11-01T00:00:00Z',
    });
    const text = readFileSync(join(dir, `${DAY}.csv`), 'utf8');
    // Markers first: a file read far from any command must say how true it is.
    expect(text.split('\n')[0]).toBe(`# as of ${SYNCED.toISOString()}`);
    const csv = dataLines(text);
    expect(csv[0]).toBe('period,kind,jobs,billed_seconds,billed_hours,audio_hours,transcription_hours');
    // One line per kind, zeros for a kind with nothing billed that day.
    expect(csv.slice(1).map((line) => line.split(',').slice(0, 2).join(','))).toEqual([
      '2026-10-31,live',
      '2026-10-31,pre-recorded',
    ]);
    expect(text.trimEnd().split('\n').at(-1)).toMatch(/^total,,\d+,/);
    for (const line of csv.slice(1)) {
      const [period, kind, jobs, , billed] = line.split(',');
      const want = expected.get(`${period}|${kind}`);
      expect(Number(jobs)).toBe(want?.jobs ?? 0);
      expect(Number(billed)).toBeCloseTo(want?.billed_hours ?? 0, 5);
    }
    const html = readFileSync(join(dir, `${DAY}.html`), 'utf8');
    expect(html).toContain('<svg');
    // The title ends with the database's file name, whole: a bare name read as a word cut short.
    const title = 'Billing by day: 2026-10-31 (UTC), all kinds, database report-files.duckdb';
    expect(html).toContain(`<title>${title}</title>`);
    expect(html).toContain(`<h1>${title}</h1>`);
    expect(html).toContain(`<li>as of ${SYNCED.toISOString()}</li>`);
    expect(html).not.toContain('STALE');
  });

  test('a kind filter names the files after the kind and keeps its row only', async () => {
    const dir = tempDir();
    const result = await withReader((database) =>
      writeBillingReport({
        db: database,
        dir,
        by: 'month',
        period: '2026-10',
        kind: 'live',
        now: NOW,
        settings: DEFAULTS,
      }),
    );
    expect(result.kind).toBe('live');
    expect(readdirSync(dir).sort()).toEqual([
      'billing-report-files-month-2026-10-live.csv',
      'billing-report-files-month-2026-10-live.html',
    ]);
    const want = expectedBilling(records, 'month', { kind: 'live' }).get('2026-10|live');
    expect(result.report.rows).toEqual([
      expect.objectContaining({ period: '2026-10', groups: ['live'], jobs: want?.jobs }),
    ]);
    expect(Number(result.report.rows[0]?.billed_hours.text)).toBeCloseTo(want?.billed_hours ?? 0, 5);
  });

  test('unchanged figures leave the files untouched, a newer sync alone too; changed figures replace them by rename', async () => {
    const dir = tempDir();
    const write = () => writeDay(dir, DEFAULTS);
    await write();
    const csvPath = join(dir, `${DAY}.csv`);
    const htmlPath = join(dir, `${DAY}.html`);
    for (const path of [csvPath, htmlPath]) utimesSync(path, OLD, OLD);
    const before = { csv: readFileSync(csvPath, 'utf8'), inode: statSync(csvPath).ino };

    const again = await write();
    expect(again.files.map((f) => f.written)).toEqual([false, false]);
    expect(statSync(csvPath).mtime).toEqual(OLD);
    expect(statSync(htmlPath).mtime).toEqual(OLD);
    // A later successful sync moves as_of but not the figures: the files stay as they are.
    await recordSyncs(db, new Date(SYNCED.getTime() + 60_000));
    expect((await write()).files.map((f) => f.written)).toEqual([false, false]);
    expect(statSync(csvPath).mtime).toEqual(OLD);

    // A job of that day completes later with a new billing_time: its figures change.
    const changed = structuredClone(lateEvening);
    ((changed['result'] as Record<string, Record<string, unknown>>)['metadata'] as Record<string, unknown>)[
      'billing_time'
    ] = 9000;
    await loadRecords(db, [changed]);
    try {
      const rewritten = await write();
      expect(rewritten.files.map((f) => f.written)).toEqual([true, true]);
      expect(statSync(csvPath).mtime).not.toEqual(OLD);
      const after = readFileSync(csvPath, 'utf8');
      expect(after).not.toBe(before.csv);
      const live = rewritten.report.rows.find((r) => r.groups[0] === 'live');
      const previous = again.report.rows.find((r) => r.groups[0] === 'live');
      const hours = (row: typeof live) => Number(row?.billed_hours.text ?? 0);
      expect(hours(live) - hours(previous)).toBeCloseTo(1, 6);
      // Replaced by rename (a new inode), never rewritten in place where a reader could see half of it.
      expect(statSync(csvPath).ino).not.toBe(before.inode);
      expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    } finally {
      await loadRecords(db, [lateEvening]);
    }
  });

  test('CSV files with a byte order mark are left untouched too when only a newer sync changed', async () => {
    const dir = tempDir();
    const write = () => writeDay(dir, { ...DEFAULTS, bom: true });
    await write();
    const csvPath = join(dir, `${DAY}.csv`);
    expect(readFileSync(csvPath, 'utf8').charCodeAt(0)).toBe(0xfeff);
    utimesSync(csvPath, OLD, OLD);
    await recordSyncs(db, new Date(SYNCED.getTime() + 120_000));
    expect((await write()).files.map((f) => f.written)).toEqual([false, false]);
    expect(statSync(csvPath).mtime).toEqual(OLD);
  });

  test('each run writes every complete day and month of the window: missed periods appear, late completions rewrite theirs', async () => {
    const dir = tempDir();
    const settings = { ...DEFAULTS, windowMs: 3 * 86_400_000, staleAfterMs: 30 * 86_400_000 };
    const runAt = (now: Date) =>
      withReader((database) => writeRecentBillingReports({ db: database, dir, now, settings }));
    // A run on 2026-10-30 covers 10-27 .. 10-29 and September (October is not complete).
    const first = await runAt(new Date('2026-10-30T06:00:00Z'));
    expect(first.map((r) => `${r.by}:${r.period}`)).toEqual([
      'day:2026-10-27',
      'day:2026-10-28',
      'day:2026-10-29',
      'month:2026-09',
    ]);
    // The worker was down on the 31st and the 1st: the run of 11-02 writes 10-30, 10-31, 11-01 and
    // October; the periods already written are left alone.
    const second = await runAt(new Date('2026-11-02T06:00:00Z'));
    const written = (results: typeof second) =>
      results.filter((r) => r.files.some((f) => f.written)).map((r) => `${r.by}:${r.period}`);
    expect(written(second)).toEqual(['day:2026-10-30', 'day:2026-10-31', 'day:2026-11-01', 'month:2026-10']);
    expect(second.map((r) => r.stale)).toEqual(second.map(() => false));
    // A job of 10-31 completes late (its billing_time changes): that day and October are rewritten.
    const changed = structuredClone(lateEvening);
    ((changed['result'] as Record<string, Record<string, unknown>>)['metadata'] as Record<string, unknown>)[
      'billing_time'
    ] = 7200;
    await loadRecords(db, [changed]);
    try {
      expect(written(await runAt(new Date('2026-11-02T07:00:00Z')))).toEqual([
        'day:2026-10-31',
        'month:2026-10',
      ]);
    } finally {
      await loadRecords(db, [lateEvening]);
    }
  });

  test("a worker of one kind writes that kind's files, grouped and priced as configured", async () => {
    const dir = tempDir();
    const prices = { currency: 'EUR', per_hour: { live: 1 } };
    await withReader((database) =>
      writeRecentBillingReports({
        db: database,
        dir,
        now: NOW,
        settings: {
          ...DEFAULTS,
          kind: 'live',
          windowMs: 1,
          groupBy: ['metadata.customer'],
          prices,
          bom: true,
        },
      }),
    );
    expect(readdirSync(dir).sort()).toEqual([
      'billing-report-files-day-2026-10-31-live.csv',
      'billing-report-files-day-2026-10-31-live.html',
      'billing-report-files-month-2026-10-live.csv',
      'billing-report-files-month-2026-10-live.html',
    ]);
    const csv = readFileSync(join(dir, 'billing-report-files-month-2026-10-live.csv'), 'utf8');
    expect(csv.charCodeAt(0)).toBe(0xfeff);
    expect(dataLines(csv.slice(1))[0]).toBe(
      'period,metadata.customer,jobs,billed_seconds,billed_hours,cost,currency,audio_hours,transcription_hours',
    );
    // At 1 EUR an hour, each row's cost is its billed hours rounded to the cent.
    for (const line of dataLines(csv.slice(1)).slice(1)) {
      const cells = line.split(',');
      expect(Number(cells[5])).toBeCloseTo(Math.round(Number(cells[4]) * 100) / 100, 9);
    }
  });

  test('a mirror without a successful sync gets no files; a stale one gets files marked STALE', async () => {
    const dir = tempDir();
    const path = join(dir, 'never-synced.duckdb');
    await loadRecords(path, records);
    const reader = await openReadOnly(path);
    try {
      const results = await writeRecentBillingReports({
        db: reader,
        dir: join(dir, 'reports'),
        now: NOW,
        settings: DEFAULTS,
      });
      expect(results.map((r) => [r.report.as_of, r.files.length])).toEqual([[null, 0]]);
    } finally {
      await reader.close();
    }
    expect(readdirSync(dir)).toEqual(['never-synced.duckdb']);

    const stale = await withReader((database) =>
      writeBillingReport({
        db: database,
        dir,
        by: 'day',
        period: '2026-10-31',
        now: new Date('2026-11-05T00:00:00Z'),
        settings: { ...DEFAULTS, staleAfterMs: 86_400_000 },
      }),
    );
    expect(stale.stale).toBe(true);
    expect(readFileSync(join(dir, `${DAY}.csv`), 'utf8').split('\n')[0]).toMatch(
      /^# STALE: the last successful sync/,
    );
    expect(readFileSync(join(dir, `${DAY}.html`), 'utf8')).toMatch(/<p class="alert">STALE: /);
  });

  test('a period that is not a day or month is refused', async () => {
    await withReader(async (database) => {
      await expect(
        writeBillingReport({
          db: database,
          dir: tempDir(),
          by: 'day',
          period: '2026-10',
          settings: DEFAULTS,
        }),
      ).rejects.toThrow(/not a day/);
      await expect(
        writeBillingReport({
          db: database,
          dir: tempDir(),
          by: 'month',
          period: '2026-13',
          settings: DEFAULTS,
        }),
      ).rejects.toThrow(/not a month/);
    });
  });
});
