import { describe, expect, test } from 'vitest';
import { command as report } from '../../../src/cli/commands/report.js';
import type { JobRecord } from '../../../src/simulator/index.js';
import { craftJob, jsonRows, loadedDatabase, smallDataset } from '../../helpers/analytics-data.js';

type Row = Record<string, unknown>;

const generated = smallDataset(23, 60);
const crafted: JobRecord[] = [
  craftJob(generated, {
    id: 'fail-503-a',
    kind: 'live',
    status: 'error',
    createdAt: '2026-10-20T10:00:00.000Z',
    errorCode: 503,
  }),
  craftJob(generated, {
    id: 'fail-503-b',
    kind: 'live',
    status: 'error',
    createdAt: '2026-10-21T10:00:00.000Z',
    errorCode: 503,
  }),
  craftJob(generated, {
    id: 'fail-no-code',
    kind: 'live',
    status: 'error',
    createdAt: '2026-10-22T10:00:00.000Z',
    errorCode: null,
  }),
  // Three done jobs on a day of their own with latencies of 10, 20 and 60 seconds.
  ...[10, 20, 60].map((seconds, i) =>
    craftJob(generated, {
      id: `latency-${i}`,
      kind: 'pre-recorded',
      createdAt: '2026-12-05T00:00:00.000Z',
      completedAt: new Date(Date.parse('2026-12-05T00:00:00.000Z') + seconds * 1000).toISOString(),
    }),
  ),
  craftJob(generated, {
    id: 'gone-upstream',
    kind: 'live',
    status: 'error',
    createdAt: '2026-10-20T11:00:00.000Z',
    errorCode: 503,
  }),
];
const records = [...generated, ...crafted];
const visible = records.filter((r) => r['id'] !== 'gone-upstream');

const db = loadedDatabase('report-summaries', records, { deleted: ['gone-upstream'] });

function reportJson(...args: string[]): Promise<Row[]> {
  return jsonRows(report, [...args, '--db', db, '--format', 'json']);
}

function countBy(items: readonly JobRecord[], key: (r: JobRecord) => string): Map<string, number> {
  const out = new Map<string, number>();
  for (const item of items) out.set(key(item), (out.get(key(item)) ?? 0) + 1);
  return out;
}

/** Linear interpolation between closest ranks, as quantile_cont does, written out independently. */
function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const position = (sorted.length - 1) * q;
  const low = Math.floor(position);
  const high = Math.ceil(position);
  return (sorted[low] ?? 0) + ((sorted[high] ?? 0) - (sorted[low] ?? 0)) * (position - low);
}

describe('summary reports', () => {
  test('status counts the jobs of each kind and status', async () => {
    const rows = await reportJson('status');
    const expected = countBy(visible, (r) => `${r['kind']}|${r['status']}`);
    expect(new Map(rows.map((r) => [`${r['kind']}|${r['status']}`, r['jobs']]))).toEqual(expected);
  });

  test('errors counts failed jobs per error_code and kind, NULL code included, deleted left out', async () => {
    const rows = await reportJson('errors');
    const failed = visible.filter((r) => r['status'] === 'error');
    const expected = countBy(failed, (r) => `${r['error_code'] ?? 'null'}|${r['kind']}`);
    expect(new Map(rows.map((r) => [`${r['error_code'] ?? 'null'}|${r['kind']}`, r['jobs']]))).toEqual(
      expected,
    );
    const live503 = rows.find((r) => r['error_code'] === 503 && r['kind'] === 'live');
    expect(live503?.['jobs']).toBe(expected.get('503|live'));
    const withDeleted = await reportJson('errors', '--include-deleted');
    const live503All = withDeleted.find((r) => r['error_code'] === 503 && r['kind'] === 'live');
    expect(live503All?.['jobs']).toBe(Number(live503?.['jobs']) + 1);
  });

  test('latency percentiles per day equal those computed from created_at and completed_at', async () => {
    const rows = await reportJson('latency', '--by', 'day', '--from', '2026-12-05', '--to', '2026-12-05');
    expect(rows).toEqual([
      {
        period: '2026-12-05',
        kind: 'pre-recorded',
        jobs: 3,
        p50_seconds: 20,
        p90_seconds: quantile([10, 20, 60], 0.9),
        p99_seconds: quantile([10, 20, 60], 0.99),
        max_seconds: 60,
      },
    ]);
  });

  test('latency per month covers every done job with a completion time', async () => {
    const rows = await reportJson('latency', '--by', 'month', '--kind', 'live');
    const done = visible.filter((r) => r['status'] === 'done' && r['kind'] === 'live' && r['completed_at']);
    const expected = countBy(done, (r) => String(r['created_at']).slice(0, 7));
    expect(new Map(rows.map((r) => [r['period'], r['jobs']]))).toEqual(expected);
    for (const row of rows) {
      const latencies = done
        .filter((r) => String(r['created_at']).startsWith(String(row['period'])))
        .map((r) => (Date.parse(String(r['completed_at'])) - Date.parse(String(r['created_at']))) / 1000);
      expect(row['p50_seconds']).toBeCloseTo(quantile(latencies, 0.5), 2);
      expect(row['max_seconds']).toBeCloseTo(Math.max(...latencies), 2);
    }
  });
});
