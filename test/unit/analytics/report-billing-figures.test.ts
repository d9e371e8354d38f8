/**
 * Every figure of `report billing` against sums computed independently from the records (see
 * helpers/billing-expected.ts): per day, ISO week, month, quarter and year, per customer key and
 * model, with prices, by creation or completion date; empty periods and groups left out by default
 * (with the same totals) and listed as zero rows with --include-empty; the JSON object's trust
 * markers; and the same totals and markers in table, CSV and HTML.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { command as report } from '../../../src/cli/commands/report.js';
import type { JobRecord } from '../../../src/simulator/index.js';
import { openReadOnly } from '../../../src/store/open-file.js';
import {
  craftJob,
  loadedDatabase,
  recordSyncs,
  runCommand,
  smallDataset,
} from '../../helpers/analytics-data.js';
import {
  costFigure,
  type ExpectedQuery,
  expectedSums,
  hoursFigure,
  labelsBetween,
  secondsFigure,
  total,
  type Unit,
} from '../../helpers/billing-expected.js';
import { fileTempDir } from '../../helpers/tmp.js';

type Row = Record<string, unknown>;
interface ReportJson {
  as_of: string | null;
  rows: Row[];
  total: Row;
  not_counted: { quarantined: number; pending: number };
  empty_rows: { listed: boolean; left_out: number };
  warnings: string[];
}

// Ten quiet days in September: the report must show them, not skip them.
const generated = smallDataset(23, 70).filter((r) => {
  const created = String(r['created_at']);
  return created < '2026-09-01' || created >= '2026-09-11';
});
const crafted: JobRecord[] = [
  craftJob(generated, {
    id: 'acme-prerecorded',
    kind: 'pre-recorded',
    createdAt: '2026-10-05T10:00:00.000Z',
    completedAt: '2026-10-05T10:10:00.000Z',
    billingTime: 20.555465,
    customMetadata: { customer: 'Acme' },
    model: 'solaria-3',
  }),
  craftJob(generated, {
    id: 'acme-live-across-months',
    kind: 'live',
    createdAt: '2026-10-31T23:00:00.000Z',
    completedAt: '2026-11-01T00:30:00.000Z',
    billingTime: 275.005542,
    customMetadata: { customer: 'Acme', team: 'x' },
  }),
  craftJob(generated, {
    id: 'customer-null-no-model',
    kind: 'pre-recorded',
    createdAt: '2026-10-12T08:00:00.000Z',
    completedAt: '2026-10-12T08:05:00.000Z',
    billingTime: 13,
    customMetadata: { customer: null },
    model: null,
  }),
  craftJob(generated, {
    id: 'globex-live',
    kind: 'live',
    createdAt: '2026-10-20T12:00:00.000Z',
    completedAt: '2026-10-20T12:02:00.000Z',
    billingTime: 5.69,
    customMetadata: { customer: 'Globex' },
  }),
  craftJob(generated, {
    id: 'done-without-completed-at',
    kind: 'live',
    createdAt: '2026-10-22T12:00:00.000Z',
    completedAt: null,
    billingTime: 30,
  }),
  craftJob(generated, {
    id: 'formula-customer',
    kind: 'pre-recorded',
    createdAt: '2026-10-21T12:00:00.000Z',
    completedAt: '2026-10-21T12:02:00.000Z',
    billingTime: 60,
    customMetadata: { customer: '=HYPERLINK("http://x")' },
  }),
];
// Records the service sent but validation refused: one in October, one in August.
const invalid: JobRecord[] = ['2026-10-10T09:00:00.000Z', '2026-08-15T09:00:00.000Z'].map((at, i) => ({
  ...craftJob(generated, { id: `invalid-${i}`, kind: 'live', createdAt: at }),
  status: 'exploded',
}));
const records = [...generated, ...crafted];
const AS_OF = new Date('2026-11-01T00:00:00.000Z');

const temp = fileTempDir('tsync-figures-');
const db = loadedDatabase('report-figures', [...records, ...invalid]);
beforeAll(() => recordSyncs(db, AS_OF));

const PRICES = {
  currency: 'EUR',
  per_hour: { 'pre-recorded': 0.61, live: 0.75 },
  models: { 'solaria-3': { 'pre-recorded': 0.5 } },
};
const pricesFile = join(temp.dir, 'prices.json');
writeFileSync(pricesFile, JSON.stringify(PRICES));

/**
 * The report's output for `args`, run once per file for each distinct `args`: nothing writes to the
 * file after beforeAll, so tests that check different things of one report share its run.
 */
const outputs = new Map<string, Promise<string>>();
function run(...args: string[]): Promise<string> {
  const key = JSON.stringify(args);
  let output = outputs.get(key);
  if (output === undefined) {
    output = runCommand(report, ['billing', '--db', db, ...args]).then((outcome) => {
      expect(outcome.error?.message).toBeUndefined();
      return outcome.stdout;
    });
    outputs.set(key, output);
  }
  return output;
}

async function billing(...args: string[]): Promise<ReportJson> {
  return JSON.parse(await run('--format', 'json', ...args)) as ReportJson;
}

const groupsOf = (row: Row, keys: readonly string[]) => keys.map((k) => String(row[k]));

/** Each row equals the independent sums exactly; rows absent from the records are zeros. */
function expectRows(rows: readonly Row[], query: ExpectedQuery): void {
  const expected = expectedSums(records, query);
  const keys = query.groupBy ?? ['kind'];
  const seen = new Set<string>();
  for (const row of rows) {
    const key = JSON.stringify([row['period'], ...groupsOf(row, keys)]);
    seen.add(key);
    const want = expected.get(key) ?? { jobs: 0, micro: 0n, priced: 0n };
    expect({ key, jobs: row['jobs'], s: row['billed_seconds'], h: row['billed_hours'] }).toEqual({
      key,
      jobs: want.jobs,
      s: secondsFigure(want.micro),
      h: hoursFigure(want.micro),
    });
    if (query.prices) expect([key, row['cost']]).toEqual([key, costFigure(want.priced)]);
  }
  // Nothing the records bill is missing from the report.
  expect([...expected.keys()].filter((key) => !seen.has(key))).toEqual([]);
}

const RANGE = { from: '2026-08-03T00:00:00.000Z', before: '2026-11-01T00:00:00.000Z' };

describe('billing figures against the records', () => {
  test.each(['day', 'week', 'month', 'quarter', 'year'] as const)(
    'per %s: with --include-empty every period of the range is listed, and every figure equals the sums of the records',
    async (by: Unit) => {
      const range = ['--by', by, '--from', '2026-08-03', '--to', '2026-10-31'];
      const result = await billing(...range, '--include-empty');
      expectRows(result.rows, { by, ...RANGE });
      const periods = [...new Set(result.rows.map((r) => r['period']))];
      expect(periods).toEqual(labelsBetween(by, RANGE.from, RANGE.before));
      // Both kinds in every period, zeros included.
      expect(result.rows).toHaveLength(periods.length * 2);
      expect(result.empty_rows).toEqual({ listed: true, left_out: 0 });
      const all = total(expectedSums(records, { by, ...RANGE }).values());
      expect(result.total).toMatchObject({
        jobs: all.jobs,
        billed_seconds: secondsFigure(all.micro),
        billed_hours: hoursFigure(all.micro),
      });
      // Without it: the same rows less the zeros, the same total, and how many were left out.
      const shown = await billing(...range);
      expect(shown.rows).toEqual(result.rows.filter((row) => row['jobs'] !== 0));
      expect(shown.total).toEqual(result.total);
      expect(shown.empty_rows).toEqual({ listed: false, left_out: result.rows.length - shown.rows.length });
    },
  );

  test('by default one row per month and kind with jobs, the same total as every day listed', async () => {
    const byDefault = await billing();
    expect(byDefault.rows.length).toBeGreaterThan(0);
    for (const row of byDefault.rows) {
      expect(String(row['period'])).toMatch(/^\d{4}-\d{2}$/);
      expect(row['jobs']).not.toBe(0);
    }
    expect(byDefault.empty_rows.listed).toBe(false);
    expect(byDefault.total).toEqual((await billing('--by', 'day', '--include-empty')).total);
  });

  test('ten days without jobs are left out and counted, or with --include-empty ten zero rows per kind', async () => {
    const range = ['--by', 'day', '--from', '2026-08-31', '--to', '2026-09-11'];
    const inQuiet = (r: Row) => String(r['period']) >= '2026-09-01' && String(r['period']) <= '2026-09-10';
    const listed = await billing(...range, '--include-empty');
    const quiet = listed.rows.filter(inQuiet);
    expect(quiet).toHaveLength(20);
    for (const row of quiet) expect([row['jobs'], row['billed_hours']]).toEqual([0, 0]);
    const shown = await billing(...range);
    expect(shown.rows.filter(inQuiet)).toEqual([]);
    expect(shown.empty_rows.left_out).toBeGreaterThanOrEqual(20);
    expect(shown.total).toEqual(listed.total);
    const table = await run(...range);
    expect(table).toContain(
      `left out: ${shown.empty_rows.left_out} empty rows, periods and groups without jobs (--include-empty lists them)`,
    );
    expect(await run(...range, '--include-empty')).not.toContain('left out:');
    const csv = await run(...range, '--format', 'csv', '--csv-comments');
    expect(csv).toContain(`# left out: ${shown.empty_rows.left_out} empty rows`);
    // The chart's axis still has a slot for each quiet day (labels every other day here).
    const html = await run(...range, '--format', 'html');
    expect(html).toMatch(/>2026-09-04<\/text>/);
  });

  test('day rows add up to their month: seconds to the rounding of each row, hours to the micro-hour per row', async () => {
    const days = (await billing('--by', 'day', '--from', '2026-10', '--to', '2026-10')).rows;
    const month = (await billing('--by', 'month', '--from', '2026-10', '--to', '2026-10')).rows;
    for (const kind of ['pre-recorded', 'live']) {
      const ofKind = days.filter((r) => r['kind'] === kind);
      const whole = month.find((r) => r['kind'] === kind) ?? {};
      const sum = (name: string) => ofKind.reduce((s, r) => s + Number(r[name]), 0);
      expect(sum('jobs')).toBe(whole['jobs']);
      // Each day row is rounded once (half a unit of its last digit at most), never re-rounded.
      expect(Math.abs(sum('billed_seconds') - Number(whole['billed_seconds']))).toBeLessThanOrEqual(
        ofKind.length * 0.0005 + 1e-9,
      );
      expect(Math.abs(sum('billed_hours') - Number(whole['billed_hours']))).toBeLessThanOrEqual(
        ofKind.length * 0.5e-6 + 1e-9,
      );
    }
    // The month's total is the exact sum of the jobs, rounded once.
    const oct = { by: 'month' as const, from: '2026-10-01T00:00:00Z', before: '2026-11-01T00:00:00Z' };
    const exact = total(expectedSums(records, oct).values());
    const result = await billing('--by', 'month', '--from', '2026-10', '--to', '2026-10');
    expect(result.total['billed_hours']).toBe(hoursFigure(exact.micro));
    expect(result.total['billed_seconds']).toBe(secondsFigure(exact.micro));
  });

  test('per customer key: one column named metadata.customer, a job without the key (or with null) in (none)', async () => {
    const groupBy = ['metadata.customer'];
    const result = await billing(
      '--by',
      'month',
      '--group-by',
      'metadata.customer',
      '--from',
      '2026-10',
      '--to',
      '2026-10',
    );
    expect(Object.keys(result.rows[0] ?? {}).slice(0, 3)).toEqual(['period', 'metadata.customer', 'jobs']);
    expectRows(result.rows, {
      by: 'month',
      groupBy,
      from: '2026-10-01T00:00:00Z',
      before: '2026-11-01T00:00:00Z',
    });
    const customers = result.rows.map((r) => r['metadata.customer']);
    expect(customers).toEqual(expect.arrayContaining(['Acme', 'Globex', '(none)']));
    expect(customers.at(-1)).toBe('(none)');
  });

  test('per model, and per customer and model together', async () => {
    for (const groupBy of [['model'], ['metadata.customer', 'model']]) {
      const result = await billing(
        '--by',
        'quarter',
        '--group-by',
        groupBy.join(','),
        '--from',
        '2026-08-03',
        '--to',
        '2026-10-31',
      );
      expectRows(result.rows, { by: 'quarter', groupBy, ...RANGE });
    }
    const byModel = await billing(
      '--by',
      'year',
      '--group-by',
      'model',
      '--from',
      '2026-10',
      '--to',
      '2026-10',
    );
    expect(byModel.rows.map((r) => r['model'])).toContain('(none)');
  });

  test('with prices: cost per row and in total, rounded to cents after summing, a model price before the kind price', async () => {
    const query = { by: 'month' as const, groupBy: ['metadata.customer'], prices: PRICES, ...RANGE };
    const result = await billing(
      '--by',
      'month',
      '--group-by',
      'metadata.customer',
      '--prices',
      pricesFile,
      '--from',
      '2026-08-03',
      '--to',
      '2026-10-31',
    );
    expectRows(result.rows, query);
    for (const row of result.rows) expect(row['currency']).toBe('EUR');
    const all = total(expectedSums(records, query).values());
    expect(result.total).toMatchObject({ cost: costFigure(all.priced), currency: 'EUR' });
    expect(Object.keys(result.rows[0] ?? {})).toEqual([
      'period',
      'metadata.customer',
      'jobs',
      'billed_seconds',
      'billed_hours',
      'cost',
      'currency',
      'audio_hours',
      'transcription_hours',
    ]);
    // Acme's solaria-3 pre-recorded job is priced 0.50, not the kind's 0.61.
    const acme = await billing(
      '--by',
      'day',
      '--group-by',
      'metadata.customer',
      '--prices',
      pricesFile,
      '--from',
      '2026-10-05',
      '--to',
      '2026-10-05',
    );
    const row = acme.rows.find((r) => r['metadata.customer'] === 'Acme');
    expect(row?.['cost']).toBe(costFigure(20_555_465n * 500_000n));
  });

  test('--date completed puts a job in the period it completed in', async () => {
    const args = [
      '--by',
      'month',
      '--group-by',
      'metadata.customer',
      '--kind',
      'live',
      '--from',
      '2026-10',
      '--to',
      '2026-11',
    ];
    const created = await billing(...args);
    const completed = await billing(...args, '--date', 'completed');
    const acme = (r: ReportJson, period: string) =>
      // No row: no jobs (a row of zeros only with --include-empty).
      r.rows.find((row) => row['period'] === period && row['metadata.customer'] === 'Acme')?.['jobs'] ?? 0;
    expect([acme(created, '2026-10'), acme(created, '2026-11')]).toEqual([1, 0]);
    // The done job without completed_at cannot be placed by completion date, and says so.
    expect(created.warnings.join('\n')).not.toContain('no completed_at');
    expect(completed.warnings).toContain(
      '1 done job has no completed_at and is left out of this report by completion date; --date created counts them',
    );
    expect([acme(completed, '2026-10'), acme(completed, '2026-11')]).toEqual([0, 1]);
    expectRows(completed.rows, {
      by: 'month',
      date: 'completed',
      kind: 'live',
      groupBy: ['metadata.customer'],
      from: '2026-10-01T00:00:00Z',
      before: '2026-12-01T00:00:00Z',
    });
  });
});

describe('billing views', () => {
  test('billing_daily and billing_monthly hold exact DECIMAL figures equal to the sums of the records', async () => {
    const reader = await openReadOnly(db);
    try {
      const types = await reader.all<{ column_name: string; column_type: string }>('DESCRIBE billing_daily');
      expect(Object.fromEntries(types.map((t) => [t.column_name, t.column_type]))).toMatchObject({
        billed_seconds: 'DECIMAL(18,3)',
        billed_hours: 'DECIMAL(18,6)',
        audio_hours: 'DECIMAL(18,6)',
      });
      for (const [view, by, column] of [
        ['billing_daily', 'day', "strftime(day, '%Y-%m-%d')"],
        ['billing_monthly', 'month', 'month'],
      ] as const) {
        const rows = await reader.all<Row>(
          `SELECT ${column} AS period, kind, jobs, billed_seconds, billed_hours FROM ${view}`,
        );
        const expected = expectedSums(records, { by });
        expect(rows).toHaveLength(expected.size);
        for (const row of rows) {
          const want = expected.get(JSON.stringify([row['period'], row['kind']]));
          expect([row['jobs'], row['billed_seconds'], row['billed_hours']]).toEqual([
            want?.jobs,
            secondsFigure(want?.micro ?? -1n),
            hoursFigure(want?.micro ?? -1n),
          ]);
        }
      }
    } finally {
      await reader.close();
    }
  });
});

describe('prices files', () => {
  test('the largest prices a file may hold give every cost to the cent, with no overflow', async () => {
    // A price just below 10^12 an hour (a currency of small units): each row's cost and the total
    // run to the quadrillions, exact to the cent.
    const price = 999_999_999_999.5;
    const path = join(temp.dir, 'prices-large.json');
    writeFileSync(
      path,
      JSON.stringify({ currency: 'VND', per_hour: { 'pre-recorded': price, live: price } }),
    );
    const range = ['--from', '2026-08-03', '--to', '2026-10-31'];
    const csv = (await run('--by', 'month', ...range, '--prices', path, '--format', 'csv'))
      .trimEnd()
      .split('\n');
    const header = (csv[0] ?? '').split(',');
    const cost = (line: string | undefined) => (line ?? '').split(',')[header.indexOf('cost')];
    const cents = (micro: bigint) => {
      const priced = micro * 999_999_999_999_500_000n;
      const whole = (priced + 18n * 10n ** 12n) / (36n * 10n ** 12n);
      return `${whole / 100n}.${String(whole % 100n).padStart(2, '0')}`;
    };
    const expected = expectedSums(records, { by: 'month', ...RANGE });
    const rows = csv.slice(1, -1).map((line) => line.split(','));
    expect(rows.length).toBe(expected.size);
    for (const row of rows) {
      const key = JSON.stringify([row[0], row[1]]);
      expect([key, row[header.indexOf('cost')]]).toEqual([key, cents(expected.get(key)?.micro ?? 0n)]);
    }
    expect(cost(csv.at(-1))).toBe(cents(total(expected.values()).micro));
  });

  test.each([
    ['{"currency": "EUR", "per_hour": {"pre-recorded": 0.61}}', 'per_hour.live'],
    ['{"per_hour": {"pre-recorded": 0.61, "live": 1}}', 'currency'],
    ['{"currency": "EUR", "per_hour": {"pre-recorded": -1, "live": 1}}', 'per_hour.pre-recorded'],
    ['{"currency": "EUR", "per_hour": {"video": 1, "live": 1, "pre-recorded": 1}}', 'per_hour.video'],
    // A price past DECIMAL(18,6), the type every price is summed in.
    ['{"currency": "EUR", "per_hour": {"pre-recorded": 1, "live": 1000000000000}}', 'per_hour.live'],
    [
      '{"currency": "EUR", "per_hour": {"live": 1, "pre-recorded": 1}, "models": {"m": {"live": "1"}}}',
      'models.m.live',
    ],
    ['{"currency": "EUR", "per_hour": {"live": 1, "pre-recorded": 1}, "vat": 0.2}', 'vat'],
    ['{"currency": "EUR", ', 'not JSON'],
  ])('%s is refused in one line naming %s', async (content, field) => {
    const path = join(temp.dir, `bad-${field}.json`);
    writeFileSync(path, content);
    const outcome = await runCommand(report, ['billing', '--db', db, '--prices', path, '--format', 'json']);
    expect(outcome.code).toBe(2);
    expect(outcome.stdout).toBe('');
    expect(outcome.error?.message).toContain('--prices');
    expect(outcome.error?.message).toContain(field);
    expect(outcome.error?.message).not.toContain('\n');
  });
});

describe('a job without a price', () => {
  const odd = 'my model\nv2';
  const unpriced = loadedDatabase('report-unpriced', [
    craftJob(generated, {
      id: 'odd-model',
      kind: 'pre-recorded',
      createdAt: '2026-10-05T12:00:00.000Z',
      model: odd,
    }),
  ]);

  test('is named in one line by its kind and its model, however the model is spelled', async () => {
    const path = join(temp.dir, 'prices-live.json');
    writeFileSync(
      path,
      JSON.stringify({ currency: 'EUR', per_hour: { live: 1 }, models: { other: { live: 2 } } }),
    );
    const outcome = await runCommand(report, ['billing', '--db', unpriced, '--prices', path]);
    expect(outcome.code).toBe(2);
    expect(outcome.error?.message).toBe(
      '--prices: per_hour.pre-recorded (or models["my model\\nv2"].pre-recorded): no price for pre-recorded "my model\\nv2" jobs in this range',
    );
    expect(`${outcome.error?.message} ${outcome.error?.hint}`).not.toContain('\n');
  });
});

describe('trust markers', () => {
  const october = ['--by', 'month', '--from', '2026-10', '--to', '2026-10'];
  const inOctober = (r: JobRecord) => String(r['created_at']).startsWith('2026-10');

  test('JSON is one object: as_of, rows, total, not_counted (quarantined, pending), empty_rows and warnings', async () => {
    const result = await billing(...october);
    expect(Object.keys(result)).toEqual(['as_of', 'rows', 'total', 'not_counted', 'empty_rows', 'warnings']);
    expect(result.as_of).toBe(AS_OF.toISOString());
    const pending = records.filter(
      (r) => inOctober(r) && (r['status'] === 'queued' || r['status'] === 'processing'),
    ).length;
    expect(pending).toBeGreaterThan(0);
    expect(result.not_counted).toEqual({ quarantined: 1, pending });
    expect(result.warnings.join('\n')).toMatch(/1 quarantined record.*transcript-sync quarantine list/);
    expect(result.warnings.join('\n')).toContain(
      `${pending} job${pending === 1 ? '' : 's'} in range still queued or processing`,
    );
  });

  test('a range past as_of says later jobs are not in the mirror yet', async () => {
    const result = await billing('--by', 'month', '--from', '2026-10', '--to', '2026-11');
    expect(result.warnings.join('\n')).toContain('the range ends after as_of (2026-11-01T00:00:00.000Z)');
    expect((await billing(...october)).warnings.join('\n')).not.toContain('ends after as_of');
  });

  test('a range the user did not end (no --to) does not warn that it ends after as_of', async () => {
    for (const args of [[], ['--from', '2026-10'], ['--by', 'month']]) {
      const result = await billing(...args);
      expect(result.warnings.join('\n'), args.join(' ')).not.toContain('ends after as_of');
    }
    // The table and CSV markers say no more than the JSON does.
    expect(await run('--from', '2026-10')).not.toContain('ends after as_of');
  });

  test('table, CSV and HTML show the same total and markers as JSON', async () => {
    const json = await billing(...october, '--prices', pricesFile);
    const t = json.total;
    const csv = (await run(...october, '--prices', pricesFile, '--format', 'csv')).trimEnd().split('\n');
    expect(csv[0]).toBe(
      'period,kind,jobs,billed_seconds,billed_hours,cost,currency,audio_hours,transcription_hours',
    );
    // The same figures, each at its column's full scale in the CSV (0.222600 is JSON's 0.2226).
    const cells = (csv.at(-1) ?? '').split(',');
    expect(cells.map((cell) => (cell === '' || Number.isNaN(Number(cell)) ? cell : Number(cell)))).toEqual([
      'total',
      '',
      t['jobs'],
      t['billed_seconds'],
      t['billed_hours'],
      t['cost'],
      'EUR',
      t['audio_hours'],
      t['transcription_hours'],
    ]);
    const table = await run(...october, '--prices', pricesFile);
    expect(table).toMatch(
      new RegExp(
        `\\ntotal\\s+${t['jobs']}\\s+${Number(t['billed_seconds']).toFixed(3)}\\s+${Number(t['billed_hours']).toFixed(6)}\\s+${Number(t['cost']).toFixed(2)}\\s+EUR`,
      ),
    );
    expect(table).toContain(`as of ${AS_OF.toISOString()}`);
    expect(table).toContain(
      `not counted: 1 quarantined (transcript-sync quarantine list), ${json.not_counted.pending} pending`,
    );
    const html = await run(...october, '--prices', pricesFile, '--format', 'html');
    expect(html).toContain(`<tfoot><tr><td>total</td><td></td><td class="n">${t['jobs']}</td>`);
    expect(html).toContain(`<li>as of ${AS_OF.toISOString()}</li>`);
    expect(html).toContain('<li>not counted: 1 quarantined');
  });

  test('CSV: comment lines only with --csv-comments, a BOM only with --bom, formulas disarmed', async () => {
    const plain = await run(...october, '--group-by', 'metadata.customer', '--format', 'csv');
    expect(plain.startsWith('period,')).toBe(true);
    expect(plain).toContain(`\n2026-10,"'=HYPERLINK(""http://x"")",1,`);
    const commented = await run(...october, '--format', 'csv', '--csv-comments');
    const lines = commented.split('\n');
    expect(lines[0]).toBe(`# as of ${AS_OF.toISOString()}`);
    expect(lines[1]).toMatch(/^# not counted: 1 quarantined/);
    expect(lines.find((l) => !l.startsWith('#'))).toMatch(/^period,kind,jobs/);
    const bom = await run(...october, '--format', 'csv', '--bom');
    expect(bom.charCodeAt(0)).toBe(0xfeff);
    expect(bom.slice(1)).toBe(await run(...october, '--format', 'csv'));
  });
});

describe('rows that do not add up to the total', () => {
  const days = ['--by', 'day', '--from', '2026-10-01', '--to', '2026-10-31', '--prices', pricesFile];

  /** Each figure column of a CSV summed exactly (scaled integers), and the CSV's total row. */
  function csvSums(csv: string): { sums: Map<string, string>; totals: Map<string, string> } {
    const lines = csv
      .trimEnd()
      .split('\n')
      .filter((line) => !line.startsWith('#'));
    const header = (lines[0] ?? '').split(',');
    const body = lines.slice(1, -1).map((line) => line.split(','));
    const totalLine = (lines.at(-1) ?? '').split(',');
    const sums = new Map<string, string>();
    const totals = new Map<string, string>();
    for (const name of ['billed_seconds', 'billed_hours', 'cost', 'audio_hours', 'transcription_hours']) {
      const i = header.indexOf(name);
      const scale = (totalLine[i] ?? '').split('.')[1]?.length ?? 0;
      const units = body.reduce((sum, cells) => sum + BigInt((cells[i] ?? '0').replace('.', '')), 0n);
      const digits = units.toString().padStart(scale + 1, '0');
      sums.set(name, `${digits.slice(0, -scale)}.${digits.slice(-scale)}`);
      totals.set(name, totalLine[i] ?? '');
    }
    return { sums, totals };
  }

  test('the note says which figures differ, by how much, and why, in every format', async () => {
    const { sums, totals } = csvSums(await run(...days, '--format', 'csv'));
    const off = [...sums].filter(([name, sum]) => sum !== totals.get(name));
    // Per-day rows of October, priced and rounded each: some column differs from the total.
    expect(off.length).toBeGreaterThan(0);
    const note = `the rows add up to ${off.map(([name, sum]) => `${name} ${sum} (total ${totals.get(name)})`).join(', ')}: each row and the total are rounded once from the exact sums of their own jobs`;
    const json = await billing(...days);
    expect(json.warnings.at(-1)).toBe(note);
    const table = await run(...days);
    expect(table.trimEnd().split('\n').at(-1)).toBe(`warning: ${note}`);
    const csv = await run(...days, '--format', 'csv', '--csv-comments');
    expect(csv.split('\n').filter((line) => line.startsWith('#'))).toContain(`# warning: ${note}`);
    expect(await run(...days, '--format', 'csv')).not.toContain('add up');
    const html = await run(...days, '--format', 'html');
    // Under the table it is about, not in the box of markers above the chart.
    expect(html).toContain(`</table>\n<p class="footnote">Note: ${note}.</p>`);
    expect(html.slice(0, html.indexOf('<table>'))).not.toContain('add up');
  });

  test('rows that add up say nothing about it', async () => {
    const month = await billing('--by', 'month', '--from', '2026-10', '--to', '2026-10', '--kind', 'live');
    expect(month.rows).toHaveLength(1);
    expect(month.warnings.join('\n')).not.toContain('add up');
    expect(
      await run(
        '--by',
        'month',
        '--from',
        '2026-10',
        '--to',
        '2026-10',
        '--kind',
        'live',
        '--format',
        'html',
      ),
    ).not.toContain('class="footnote"');
  });
});
