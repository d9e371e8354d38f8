import { describe, expect, test } from 'vitest';
import { command as report } from '../../../src/cli/commands/report.js';
import type { JobRecord } from '../../../src/simulator/index.js';
import {
  craftJob,
  expectedBilling,
  jsonRows,
  loadedDatabase,
  runCommand,
  smallDataset,
} from '../../helpers/analytics-data.js';

type Row = Record<string, unknown>;

const generated = smallDataset(11, 60);
const crafted: JobRecord[] = [
  craftJob(generated, {
    id: 'edge-last-ms-oct',
    kind: 'live',
    createdAt: '2026-10-31T23:59:59.999Z',
    billingTime: 3600,
  }),
  craftJob(generated, {
    id: 'edge-first-nov',
    kind: 'live',
    createdAt: '2026-11-01T00:00:00.000Z',
    billingTime: 1800,
  }),
  craftJob(generated, {
    id: 'edge-last-ms-sep',
    kind: 'pre-recorded',
    createdAt: '2026-09-30T23:59:59.999Z',
    billingTime: 7200,
  }),
  craftJob(generated, {
    id: 'edge-first-oct',
    kind: 'pre-recorded',
    createdAt: '2026-10-01T00:00:00.000Z',
    billingTime: 900,
  }),
  craftJob(generated, {
    id: 'gone-upstream',
    kind: 'live',
    createdAt: '2026-10-15T12:00:00.000Z',
    billingTime: 36_000,
  }),
];
const records = [...generated, ...crafted];
const visible = records.filter((r) => r['id'] !== 'gone-upstream');

// A job a --full sync no longer found upstream, marked as such.
const db = loadedDatabase('report-billing', records, {
  deleted: ['gone-upstream'],
  deletedAt: new Date('2026-11-02T00:00:00Z'),
});

function billingJson(...args: string[]): Promise<Row[]> {
  return jsonRows(report, ['billing', '--db', db, '--format', 'json', ...args]);
}

/** Rows with jobs match the expected sums; every other row (an empty period or kind) is all zeros. */
function expectFigures(all: readonly Row[], expected: ReturnType<typeof expectedBilling>): void {
  const rows = all.filter((r) => Number(r['jobs']) > 0);
  for (const empty of all.filter((r) => r['jobs'] === 0)) {
    expect([empty['billed_seconds'], empty['billed_hours'], empty['audio_hours']]).toEqual([0, 0, 0]);
  }
  expect(rows.map((r) => `${r['period']}|${r['kind']}`).sort()).toEqual([...expected.keys()].sort());
  for (const row of rows) {
    const want = expected.get(`${row['period']}|${row['kind']}`);
    expect(row['jobs']).toBe(want?.jobs);
    expect(row['billed_hours']).toBeCloseTo(want?.billed_hours ?? Number.NaN, 5);
    expect(row['audio_hours']).toBeCloseTo(want?.audio_hours ?? Number.NaN, 5);
    expect(row['transcription_hours']).toBeCloseTo(want?.transcription_hours ?? Number.NaN, 5);
  }
}

describe('report billing', () => {
  test('figures per day equal the sums of the records', async () => {
    const rows = await billingJson('--by', 'day');
    expect(rows.length).toBeGreaterThan(30);
    expectFigures(rows, expectedBilling(visible, 'day'));
  });

  test('figures per month equal the sums of the records', async () => {
    expectFigures(await billingJson('--by', 'month'), expectedBilling(visible, 'month'));
  });

  test('rows carry period, kind, jobs and hours, ordered by period then kind', async () => {
    const rows = await billingJson('--by', 'month');
    expect(Object.keys(rows[0] ?? {})).toEqual([
      'period',
      'kind',
      'jobs',
      'billed_seconds',
      'billed_hours',
      'audio_hours',
      'transcription_hours',
    ]);
    const keys = rows.map((r) => `${r['period']}|${r['kind']}`);
    expect(keys).toEqual([...keys].sort());
    for (const row of rows) expect(row['period']).toMatch(/^\d{4}-\d{2}$/);
  });

  test('--kind all reports both kinds, as sync --kind all syncs both', async () => {
    const all = await billingJson('--by', 'month', '--kind', 'all');
    expect(all).toEqual(await billingJson('--by', 'month'));
    expect(new Set(all.filter((r) => Number(r['jobs']) > 0).map((r) => r['kind']))).toEqual(
      new Set(['live', 'pre-recorded']),
    );
  });

  test('a job created at 23:59:59.999Z counts in its own day, the next millisecond in the next day', async () => {
    const oct31 = await billingJson(
      '--by',
      'day',
      '--from',
      '2026-10-31',
      '--to',
      '2026-10-31',
      '--kind',
      'live',
    );
    expectFigures(
      oct31,
      expectedBilling(visible, 'day', {
        kind: 'live',
        from: '2026-10-31T00:00:00Z',
        before: '2026-11-01T00:00:00Z',
      }),
    );
    expect(oct31).toHaveLength(1);
    const nov1 = await billingJson('--by', 'day', '--from', '2026-11-01', '--kind', 'live');
    expect(nov1.filter((r) => Number(r['jobs']) > 0)).toEqual([
      {
        period: '2026-11-01',
        kind: 'live',
        jobs: 1,
        billed_seconds: 1800,
        billed_hours: 0.5,
        audio_hours: expect.any(Number),
        transcription_hours: expect.any(Number),
      },
    ]);
  });

  test('--from and --to months are inclusive and stop at the first and last millisecond of the month', async () => {
    const rows = await billingJson(
      '--by',
      'month',
      '--from',
      '2026-10',
      '--to',
      '2026-10',
      '--kind',
      'pre-recorded',
    );
    const expected = expectedBilling(visible, 'month', {
      kind: 'pre-recorded',
      from: '2026-10-01T00:00:00Z',
      before: '2026-11-01T00:00:00Z',
    });
    expectFigures(rows, expected);
    // The first-of-month job is in, the one a millisecond earlier (September) is out.
    const september = await billingJson('--by', 'month', '--to', '2026-09', '--kind', 'pre-recorded');
    expect(september.map((r) => r['period'])).not.toContain('2026-10');
    expect(september.at(-1)?.['period']).toBe('2026-09');
  });

  test('--to a day includes that whole day', async () => {
    const rows = await billingJson(
      '--by',
      'day',
      '--from',
      '2026-09-30',
      '--to',
      '2026-10-01',
      '--kind',
      'pre-recorded',
    );
    expectFigures(
      rows,
      expectedBilling(visible, 'day', {
        kind: 'pre-recorded',
        from: '2026-09-30T00:00:00Z',
        before: '2026-10-02T00:00:00Z',
      }),
    );
    expect(rows.map((r) => r['period'])).toEqual(expect.arrayContaining(['2026-09-30', '2026-10-01']));
  });

  test('a kind filter keeps that kind only, with the same figures', async () => {
    const rows = await billingJson('--by', 'month', '--kind', 'pre-recorded');
    expect(new Set(rows.map((r) => r['kind']))).toEqual(new Set(['pre-recorded']));
    expectFigures(rows, expectedBilling(visible, 'month', { kind: 'pre-recorded' }));
  });

  test('jobs deleted upstream are left out unless --include-deleted', async () => {
    const day = ['--by', 'day', '--from', '2026-10-15', '--to', '2026-10-15', '--kind', 'live'];
    const without = await billingJson(...day);
    const withDeleted = await billingJson(...day, '--include-deleted');
    expectFigures(
      without,
      expectedBilling(visible, 'day', {
        kind: 'live',
        from: '2026-10-15T00:00:00Z',
        before: '2026-10-16T00:00:00Z',
      }),
    );
    expectFigures(
      withDeleted,
      expectedBilling(records, 'day', {
        kind: 'live',
        from: '2026-10-15T00:00:00Z',
        before: '2026-10-16T00:00:00Z',
      }),
    );
    const hours = (rows: Row[]) => rows.reduce((sum, r) => sum + Number(r['billed_hours']), 0);
    expect(hours(withDeleted) - hours(without)).toBeCloseTo(10, 6);
  });

  test('only done jobs with a billing_time are billed', async () => {
    const rows = await billingJson('--by', 'month');
    const billedJobs = rows.reduce((sum, r) => sum + Number(r['jobs']), 0);
    const done = visible.filter((r) => r['status'] === 'done').length;
    expect(billedJobs).toBe(done);
    expect(visible.length).toBeGreaterThan(done);
  });

  test.each([
    [['billing', '--by', 'fortnight'], '--by'],
    [['billing', '--date', 'invoiced'], '--date'],
    [['billing', '--group-by', 'customer'], '--group-by'],
    [['billing', '--group-by', 'kind,model,metadata.a,metadata.b'], '--group-by'],
    [['billing', '--prices', '/nonexistent/prices.json'], '--prices'],
    [['latency', '--group-by', 'model'], '--group-by'],
    [['billing', '--from', '2026-02-30'], '--from'],
    [['billing', '--to', 'yesterday'], '--to'],
    [['billing', '--from', '2026-11-02', '--to', '2026-11-01'], '--from'],
    [['billing', '--kind', 'video'], '--kind'],
    [['billing', '--format', 'xml'], '--format'],
    [['status', '--by', 'month'], '--by'],
    [['weekly'], 'report'],
    [[], 'report'],
  ])('refuses %j as a usage error naming %s', async (argv, setting) => {
    const outcome = await runCommand(report, [...argv, '--db', db]);
    expect(outcome.code).toBe(2);
    expect(outcome.error?.message).toContain(setting);
  });
});
