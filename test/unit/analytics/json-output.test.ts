/**
 * Every JSON the CLI prints writes numbers exactly, one JSON type per column: DECIMAL, HUGEINT and
 * BIGINT as number literals of DuckDB's own text (never through a double), INTERVAL as an ISO 8601
 * duration; the same through the writer's read socket, and in the billing report's figures.
 */
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { formatJson } from '../../../src/analytics/format/output-format.js';
import { serveReads } from '../../../src/analytics/read/read-server.js';
import { connectWriter } from '../../../src/analytics/read/reader.js';
import { command as query } from '../../../src/cli/commands/query.js';
import { command as report } from '../../../src/cli/commands/report.js';
import { command as runs } from '../../../src/cli/commands/runs.js';
import { command as status } from '../../../src/cli/commands/status.js';
import { silentLogger } from '../../../src/log.js';
import { openReadOnly, openWriter } from '../../../src/store/open-file.js';
import { ExactNumber, JsonText, writeJson } from '../../../src/util/json-writer.js';
import {
  craftJob,
  loadedDatabase,
  recordSyncs,
  runCommand,
  smallDataset,
} from '../../helpers/analytics-data.js';
import { tempDir } from '../../helpers/tmp.js';

const generated = smallDataset(5, 4);
// Twenty jobs of almost a trillion seconds: sums with more digits than a double holds.
const huge = Array.from({ length: 20 }, (_, i) =>
  craftJob(generated, {
    id: `huge-${i}`,
    kind: 'pre-recorded',
    createdAt: `2026-10-0${1 + (i % 9)}T12:00:00.000Z`,
    billingTime: 987_654_321_098.765 + i,
  }),
);
const db = loadedDatabase('json-output', [...generated, ...huge]);

const EXACT_SQL = [
  'SELECT 123456789012345.123::DECIMAL(18,3) AS d18, 12345678901234567.89::DECIMAL(38,2) AS d38,',
  '  b::BIGINT AS b, 170141183460469231731687303715884105727::HUGEINT AS h,',
  "  INTERVAL '1 day 2 hours 3.5 seconds' AS i, [12345678901234567::BIGINT] AS l,",
  "  {'price': 0.61::DECIMAL(18,6)} AS s, '{\"n\":12345678901234567890}'::JSON AS j",
  'FROM (VALUES (1), (12345678901234567)) v(b) ORDER BY b',
].join('\n');

const EXACT_JSON = `[
  {
    "d18": 123456789012345.123,
    "d38": 12345678901234567.89,
    "b": 1,
    "h": 170141183460469231731687303715884105727,
    "i": "P1DT2H3.5S",
    "l": [12345678901234567],
    "s": {"price":0.610000},
    "j": {"n":12345678901234567890}
  },
  {
    "d18": 123456789012345.123,
    "d38": 12345678901234567.89,
    "b": 12345678901234567,
    "h": 170141183460469231731687303715884105727,
    "i": "P1DT2H3.5S",
    "l": [12345678901234567],
    "s": {"price":0.610000},
    "j": {"n":12345678901234567890}
  }
]
`;

describe('exact numbers in JSON output', () => {
  test('query --format json writes DECIMAL, HUGEINT and BIGINT as DuckDB spells them, one type per column', async () => {
    const outcome = await runCommand(query, [EXACT_SQL, '--db', db, '--format', 'json']);
    expect(outcome.error).toBeUndefined();
    expect(outcome.stdout).toBe(EXACT_JSON);
  });

  test('the same values come whole through the read socket of a sync holding the file', async () => {
    const held = await openWriter(join(tempDir(), 'held.duckdb'));
    const reads = await serveReads(held, { logger: silentLogger });
    try {
      const reader = await connectWriter(held.path);
      expect(reader).toBeDefined();
      const printed: string[] = [];
      await reader?.userQuery(EXACT_SQL, (table) => {
        printed.push(formatJson(table));
      });
      expect(printed.join('')).toBe(EXACT_JSON);
    } finally {
      await reads.close();
      await held.close();
    }
  });

  test('query CSV and table show the same exact text', async () => {
    const sql = 'SELECT 12345678901234567.89::DECIMAL(38,2) AS d, 12345678901234567::BIGINT AS b';
    const csv = await runCommand(query, [sql, '--db', db, '--format', 'csv']);
    expect(csv.stdout).toBe('d,b\n12345678901234567.89,12345678901234567\n');
    const table = await runCommand(query, [sql, '--db', db]);
    expect(table.stdout.split('\n')[2]).toBe('12345678901234567.89  12345678901234567');
  });

  test('INTERVAL is an ISO 8601 duration, each part with its sign', async () => {
    const sql = [
      "SELECT INTERVAL '0 seconds' AS zero, INTERVAL '14 months 3 days' AS ym, INTERVAL '-90 minutes' AS neg,",
      "INTERVAL '1 month -2 days 0.000001 seconds' AS mixed",
    ].join(' ');
    const outcome = await runCommand(query, [sql, '--db', db, '--format', 'json']);
    expect(JSON.parse(outcome.stdout)).toEqual([
      { zero: 'PT0S', ym: 'P1Y2M3D', neg: 'PT-1H-30M', mixed: 'P1M-2DT0.000001S' },
    ]);
  });

  test('report billing --format json prints each figure as the DECIMAL DuckDB computed, digit for digit', async () => {
    await recordSyncs(db, new Date('2026-11-01T00:00:00.000Z'));
    const outcome = await runCommand(report, [
      'billing',
      '--db',
      db,
      '--by',
      'month',
      '--from',
      '2026-10',
      '--to',
      '2026-10',
      '--kind',
      'pre-recorded',
      '--format',
      'json',
    ]);
    expect(outcome.error).toBeUndefined();
    const reader = await openReadOnly(db);
    let want: Record<string, string> | undefined;
    try {
      [want] = await reader.all<Record<string, string>>(
        `SELECT seconds_figure(sum(exact_seconds(billing_time)))::VARCHAR AS billed_seconds,
                hours_figure(sum(exact_seconds(billing_time)))::VARCHAR AS billed_hours
         FROM job_facts WHERE billable AND kind = 'pre-recorded' AND NOT is_deleted
           AND created_at >= '2026-10-01T00:00:00Z' AND created_at < '2026-11-01T00:00:00Z'`,
      );
    } finally {
      await reader.close();
    }
    const seconds = want?.['billed_seconds'] ?? '';
    const hours = want?.['billed_hours'] ?? '';
    // More digits than a double keeps: printed through one, these would change.
    expect(String(Number(seconds))).not.toBe(seconds);
    const row = new RegExp(
      `"period": "2026-10",\\s*"kind": "pre-recorded",\\s*"jobs": \\d+,\\s*"billed_seconds": ${seconds.replace('.', '\\.')},\\s*"billed_hours": ${hours.replace('.', '\\.')},`,
    );
    expect(outcome.stdout).toMatch(row);
  });

  test('status and runs --json go through the same writer: one line, numbers as numbers', async () => {
    const statusOut = await runCommand(status, ['--db', db, '--json']);
    expect(statusOut.error).toBeUndefined();
    const kinds = JSON.parse(statusOut.stdout) as Record<string, unknown>[];
    expect(kinds.map((k) => typeof k['words'])).toEqual(['number', 'number']);
    // Each kind's words are those of its jobs, counted here through a join of every word.
    const reader = await openReadOnly(db);
    try {
      const joined = await reader.all<{ kind: string; words: number }>(
        `SELECT j.kind, count(*)::INTEGER AS words FROM words w JOIN jobs j ON j.id = w.job_id
         GROUP BY j.kind ORDER BY j.kind = 'live'`,
      );
      expect(joined.every((k) => k.words > 0)).toBe(true);
      expect(kinds.map((k) => ({ kind: k['kind'], words: k['words'] }))).toEqual(joined);
    } finally {
      await reader.close();
    }
    const runsOut = await runCommand(runs, ['--db', db, '--json']);
    expect(runsOut.stdout.trimEnd().split('\n')).toHaveLength(1);
  });

  test('status --json writes the last run as every instant is written: UTC with milliseconds', async () => {
    await recordSyncs(db, new Date('2026-11-02T03:04:05.678Z'));
    const kinds = JSON.parse((await runCommand(status, ['--db', db, '--json'])).stdout) as {
      last_run_at: string;
    }[];
    expect(kinds.map((k) => k.last_run_at)).toEqual(['2026-11-02T03:04:05.678Z', '2026-11-02T03:04:05.678Z']);
    const [last] = JSON.parse((await runCommand(runs, ['--db', db, '--json'])).stdout) as {
      started_at: string;
    }[];
    expect(last?.started_at).toBe('2026-11-02T03:04:05.678Z');
  });
});

describe('the JSON writer', () => {
  test('writes what JSON.stringify writes for plain JSON values, on one line or indented', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom(0, 2), (value, indent) => {
        expect(writeJson(value, { indent })).toBe(JSON.stringify(value, null, indent));
      }),
    );
  });

  test('bigints and exact numbers as literals, JSON text embedded, Date as ISO, NaN as a string', () => {
    const value = {
      big: 2n ** 70n,
      exact: new ExactNumber('-0.50'),
      json: new JsonText('{"a":[1,2.50]}'),
      at: new Date('2026-11-21T10:00:00.000Z'),
      skipped: undefined,
      nan: Number.NaN,
      inf: [Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY],
    };
    expect(writeJson(value)).toBe(
      '{"big":1180591620717411303424,"exact":-0.50,"json":{"a":[1,2.50]},"at":"2026-11-21T10:00:00.000Z","nan":"NaN","inf":["Infinity","-Infinity"]}',
    );
    expect(() => new ExactNumber('1,5')).toThrow(/not a JSON number/);
    expect(() => new JsonText('{')).toThrow();
  });
});
