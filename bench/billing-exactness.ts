/**
 * Billing figures of the per-row rounded formulas (sql/100) and the exact ones (sql/101), side by
 * side in one run on one DuckDB file:
 * `node dist/bench/billing-exactness.js DB [--repeat 5]`.
 *
 * - exactness: billed hours of a month summed from the day rows, from the month rows, and exactly
 *   (integer microseconds), with sql/100's formulas (DOUBLE, rounded per row) and sql/101's;
 * - time: the billing report query per day over the whole file, sql/100's text (from git: main's
 *   report-billing.sql, inlined below) against sql/101's (report_jobs, grouping sets, a total),
 *   alternated, median of --repeat.
 */
import type { Database } from '../src/store/database.js';
import { openReadOnly } from '../src/store/open-file.js';
import { billingRows } from '../src/store/statements/reports.js';

const OLD_REPORT = `
SELECT CASE WHEN $by = 'month' THEN month ELSE strftime(day, '%Y-%m-%d') END AS period, kind, count(*) AS jobs,
  round(sum(CAST(billing_time AS DECIMAL(18, 6))) / 3600, 6) AS billed_hours,
  round(sum(CAST(coalesce(audio_duration, 0) AS DECIMAL(18, 6))) / 3600, 6) AS audio_hours,
  round(sum(CAST(coalesce(transcription_time, 0) AS DECIMAL(18, 6))) / 3600, 6) AS transcription_hours
FROM job_facts
WHERE billable AND ($include_deleted OR NOT is_deleted)
  AND ($from IS NULL OR created_at >= CAST($from AS TIMESTAMPTZ))
  AND ($before IS NULL OR created_at < CAST($before AS TIMESTAMPTZ))
  AND ($kind IS NULL OR kind = $kind)
GROUP BY ALL ORDER BY period, kind`;

// sql/100's billing_daily and billing_monthly, as they computed billed_hours.
const OLD_DAY_ROWS = `SELECT round(sum(CAST(billing_time AS DECIMAL(18, 6))) / 3600, 6) AS h FROM job_facts
  WHERE billable AND NOT is_deleted AND month = $month GROUP BY day, kind`;
const OLD_MONTH_ROWS = `SELECT round(sum(CAST(billing_time AS DECIMAL(18, 6))) / 3600, 6) AS h FROM job_facts
  WHERE billable AND NOT is_deleted AND month = $month GROUP BY kind`;
const NEW_DAY_ROWS = `SELECT billed_hours AS h FROM billing_daily WHERE strftime(day, '%Y-%m') = $month`;
const NEW_MONTH_ROWS = 'SELECT billed_hours AS h FROM billing_monthly WHERE month = $month';
const NEW_TOTAL = `SELECT hours_figure(sum(exact_seconds(billing_time))) AS h FROM job_facts
  WHERE billable AND NOT is_deleted AND month = $month`;
const EXACT = `SELECT CAST(sum(CAST(billing_time AS DECIMAL(18, 6)) * 1000000) AS HUGEINT)::VARCHAR AS us
  FROM job_facts WHERE billable AND NOT is_deleted AND month = $month`;

/** The rows' sum as DuckDB adds them (DOUBLE rows in DOUBLE, DECIMAL rows exactly), as text. */
async function sumOf(db: Database, sql: string, month: string): Promise<string> {
  const [row] = await db.all<{ h: string }>(`SELECT sum(h)::VARCHAR AS h FROM (${sql})`, { month });
  return row?.h ?? '';
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

async function main(): Promise<void> {
  const [path, flag, count] = process.argv.slice(2);
  if (!path) throw new Error('usage: billing-exactness DB [--repeat N]');
  const repeat = flag === '--repeat' ? Number(count) : 5;
  const db = await openReadOnly(path);
  try {
    const months = await db.all<{ month: string }>(
      'SELECT DISTINCT month FROM job_facts WHERE billable ORDER BY month',
    );
    console.log(
      'month    exact hours (us/3.6e9)  old: sum(day rows)  old: sum(month rows)  new: sum(day rows)  new: sum(month rows)',
    );
    for (const { month } of months) {
      const [exact] = await db.all<{ us: string }>(EXACT, { month });
      const micro = BigInt(exact?.us ?? '0');
      const hours = `${micro / 3_600_000_000n}.${String(((micro % 3_600_000_000n) * 1_000_000n) / 3_600_000_000n).padStart(6, '0')}…`;
      const cells = [
        await sumOf(db, OLD_DAY_ROWS, month),
        await sumOf(db, OLD_MONTH_ROWS, month),
        await sumOf(db, NEW_DAY_ROWS, month),
        await sumOf(db, NEW_MONTH_ROWS, month),
        await sumOf(db, NEW_TOTAL, month),
      ].map((n) => String(n).padEnd(20));
      console.log(`${month}  ${hours.padEnd(22)}  ${cells.join('  ')}`);
    }
    const params = { by: 'day', from: null, before: null, kind: null, include_deleted: false };
    const byKind = { ...params, date: 'created', g1: 'kind', g2: null, g3: null, prices: null };
    const prices = JSON.stringify({ currency: 'EUR', per_hour: { 'pre-recorded': 0.61, live: 0.75 } });
    const modelPrices = JSON.stringify({
      currency: 'EUR',
      per_hour: { 'pre-recorded': 0.61, live: 0.75 },
      models: { 'solaria-3': { 'pre-recorded': 0.5 } },
    });
    const variants: [string, () => Promise<unknown>][] = [
      ['sql/100 per day and kind', () => db.all(OLD_REPORT, params)],
      ['sql/101 per day and kind', () => billingRows(db, byKind)],
      [
        'sql/101 per day and metadata.customer',
        () => billingRows(db, { ...byKind, g1: 'metadata.customer' }),
      ],
      ['sql/101 per day and kind, --prices', () => billingRows(db, { ...byKind, prices })],
      [
        'sql/101 per day and kind, --prices with models',
        () => billingRows(db, { ...byKind, prices: modelPrices }),
      ],
    ];
    const times = variants.map((): number[] => []);
    for (let i = 0; i < repeat; i++) {
      for (const [v, [, run]] of variants.entries()) times[v]?.push(await timed(run));
    }
    const [jobs] = await db.all<{ n: number }>('SELECT count(*)::INTEGER AS n FROM jobs');
    const base = median(times[0] ?? []);
    console.log(`billing report query over ${jobs?.n} jobs, median of ${repeat}, alternated:`);
    for (const [v, [name]] of variants.entries()) {
      const ms = median(times[v] ?? []);
      console.log(`  ${name.padEnd(40)} ${ms.toFixed(1).padStart(7)} ms  (x${(ms / base).toFixed(2)})`);
    }
  } finally {
    await db.close();
  }
}

await main();
