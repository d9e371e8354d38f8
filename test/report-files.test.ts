import { readdirSync, readFileSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { writeBillingReport, writeLastCompleteBillingReports } from '../src/analytics/billing-files.js';
import { lastCompletePeriod } from '../src/analytics/periods.js';
import type { JobRecord } from '../src/simulator/index.js';
import { Database } from '../src/store/database.js';
import {
  craftJob,
  expectedBilling,
  loadedDatabase,
  loadRecords,
  smallDataset,
} from './helpers/analytics-data.js';
import { tempDir } from './helpers/tmp.js';

const generated = smallDataset(31, 50);
const lateEvening = craftJob(generated, {
  id: 'late-evening',
  kind: 'live',
  createdAt: '2026-10-31T23:59:59.999Z',
  billingTime: 5400,
});
const records: JobRecord[] = [...generated, lateEvening];

const db = loadedDatabase('report-files', records);

async function withReader<T>(fn: (database: Database) => Promise<T>): Promise<T> {
  const database = await Database.open(db, { readOnly: true });
  try {
    return await fn(database);
  } finally {
    await database.close();
  }
}

const OLD = new Date('2001-01-01T00:00:00Z');

describe('scheduled billing report files', () => {
  test("writes the CSV and HTML of a day, named by period and kind, with that day's figures", async () => {
    const dir = tempDir();
    const result = await withReader((database) =>
      writeBillingReport({ db: database, dir, by: 'day', period: '2026-10-31' }),
    );
    expect(result.files.map((f) => [f.path, f.written])).toEqual([
      [join(dir, 'billing-day-2026-10-31-all.csv'), true],
      [join(dir, 'billing-day-2026-10-31-all.html'), true],
    ]);
    expect(readdirSync(dir).sort()).toEqual([
      'billing-day-2026-10-31-all.csv',
      'billing-day-2026-10-31-all.html',
    ]);
    const expected = expectedBilling(records, 'day', {
      from: '2026-10-31T00:00:00Z',
      before: '2026-11-01T00:00:00Z',
    });
    const csv = readFileSync(join(dir, 'billing-day-2026-10-31-all.csv'), 'utf8').trimEnd().split('\n');
    expect(csv[0]).toBe('period,kind,jobs,billed_hours,audio_hours,transcription_hours');
    // One line per kind, zeros for a kind with nothing billed that day.
    expect(csv.slice(1).map((line) => line.split(',').slice(0, 2).join(','))).toEqual([
      '2026-10-31,pre-recorded',
      '2026-10-31,live',
    ]);
    for (const line of csv.slice(1)) {
      const [period, kind, jobs, billed] = line.split(',');
      const want = expected.get(`${period}|${kind}`);
      expect(Number(jobs)).toBe(want?.jobs ?? 0);
      expect(Number(billed)).toBeCloseTo(want?.billed_hours ?? 0, 5);
    }
    const html = readFileSync(join(dir, 'billing-day-2026-10-31-all.html'), 'utf8');
    expect(html).toContain('<svg');
    expect(html).toContain('Billing by day: 2026-10-31');
  });

  test('a kind filter names the files after the kind and keeps its row only', async () => {
    const dir = tempDir();
    const result = await withReader((database) =>
      writeBillingReport({ db: database, dir, by: 'month', period: '2026-10', kind: 'live' }),
    );
    expect(result.kind).toBe('live');
    expect(readdirSync(dir).sort()).toEqual([
      'billing-month-2026-10-live.csv',
      'billing-month-2026-10-live.html',
    ]);
    const want = expectedBilling(records, 'month', { kind: 'live' }).get('2026-10|live');
    expect(result.rows).toEqual([
      expect.objectContaining({
        period: '2026-10',
        kind: 'live',
        jobs: want?.jobs,
        billed_hours: expect.closeTo(want?.billed_hours ?? 0, 5),
      }),
    ]);
  });

  test('unchanged figures leave the files untouched; changed figures replace them by rename', async () => {
    const dir = tempDir();
    const write = () =>
      withReader((database) => writeBillingReport({ db: database, dir, by: 'day', period: '2026-10-31' }));
    await write();
    const csvPath = join(dir, 'billing-day-2026-10-31-all.csv');
    const htmlPath = join(dir, 'billing-day-2026-10-31-all.html');
    for (const path of [csvPath, htmlPath]) utimesSync(path, OLD, OLD);
    const before = { csv: readFileSync(csvPath, 'utf8'), inode: statSync(csvPath).ino };

    const again = await write();
    expect(again.files.map((f) => f.written)).toEqual([false, false]);
    expect(statSync(csvPath).mtime).toEqual(OLD);
    expect(statSync(htmlPath).mtime).toEqual(OLD);

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
      const live = rewritten.rows.find((r) => r.kind === 'live');
      const previous = again.rows.find((r) => r.kind === 'live');
      expect((live?.billed_hours ?? 0) - (previous?.billed_hours ?? 0)).toBeCloseTo(1, 6);
      // Replaced by rename (a new inode), never rewritten in place where a reader could see half of it.
      expect(statSync(csvPath).ino).not.toBe(before.inode);
      expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    } finally {
      await loadRecords(db, [lateEvening]);
    }
  });

  test('the last complete periods are yesterday and last month, in UTC', async () => {
    expect(lastCompletePeriod('day', new Date('2026-11-01T00:00:00.000Z'))).toBe('2026-10-31');
    expect(lastCompletePeriod('day', new Date('2026-11-01T23:59:59.999Z'))).toBe('2026-10-31');
    expect(lastCompletePeriod('month', new Date('2026-11-01T00:00:00.000Z'))).toBe('2026-10');
    expect(lastCompletePeriod('month', new Date('2026-01-15T12:00:00.000Z'))).toBe('2025-12');
    expect(lastCompletePeriod('day', new Date('2028-03-01T05:00:00.000Z'))).toBe('2028-02-29');

    const dir = tempDir();
    const results = await withReader((database) =>
      writeLastCompleteBillingReports({ db: database, dir, now: new Date('2026-11-01T06:00:00Z') }),
    );
    expect(results.map((r) => `${r.by}:${r.period}`)).toEqual(['day:2026-10-31', 'month:2026-10']);
    expect(readdirSync(dir).sort()).toEqual([
      'billing-day-2026-10-31-all.csv',
      'billing-day-2026-10-31-all.html',
      'billing-month-2026-10-all.csv',
      'billing-month-2026-10-all.html',
    ]);
  });

  test('a period that is not a day or month is refused', async () => {
    await withReader(async (database) => {
      await expect(
        writeBillingReport({ db: database, dir: tempDir(), by: 'day', period: '2026-10' }),
      ).rejects.toThrow(/not a day/);
      await expect(
        writeBillingReport({ db: database, dir: tempDir(), by: 'month', period: '2026-13' }),
      ).rejects.toThrow(/not a month/);
    });
  });
});
