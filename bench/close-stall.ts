/**
 * How long closing a database file stalls the event loop (a worker's /metrics, /healthz and read
 * socket wait for it), side by side in one run:
 * `node dist/bench/close-stall.js [--rows 20000] [--repeat 7]`.
 *
 * - before: DuckDB's close alone (closeSync checkpoints the WAL on the event loop);
 * - after: Database.close() (CHECKPOINT on DuckDB's threads first, then closeSync).
 * Each round writes the same rows into a fresh file, uncheckpointed, and closes it; a 1 ms ticker
 * measures the longest gap between its ticks during the close. Medians of --repeat, alternated.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DuckDBInstance } from '@duckdb/node-api';
import { openWriter } from '../src/store/open-file.js';

// What a sync's last commits leave in the WAL: words-shaped rows, and keyed rows (an index to write).
const FILL = [
  `CREATE TABLE scratch AS SELECT range AS id, 'word ' || (range % 5000) AS word,
     random() AS start, random() AS confidence FROM range($rows)`,
  'CREATE TABLE keyed (id INTEGER PRIMARY KEY, v VARCHAR)',
  "INSERT INTO keyed SELECT range, 'x' FROM range($rows // 4)",
];

async function longestStall(close: () => Promise<void> | void): Promise<{ stall: number; total: number }> {
  let last = performance.now();
  let stall = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    stall = Math.max(stall, now - last);
    last = now;
  }, 1);
  await new Promise((resolve) => setTimeout(resolve, 5));
  const started = performance.now();
  last = started;
  await close();
  const total = performance.now() - started;
  stall = Math.max(stall, performance.now() - last);
  clearInterval(ticker);
  return { stall, total };
}

async function before(dir: string, rows: number) {
  const instance = await DuckDBInstance.create(join(dir, 'before.duckdb'), { checkpoint_threshold: '1GB' });
  const connection = await instance.connect();
  for (const sql of FILL) await connection.run(sql, sql.includes('$rows') ? { rows } : {});
  return longestStall(() => {
    connection.closeSync();
    instance.closeSync();
  });
}

async function after(dir: string, rows: number) {
  const db = await openWriter(join(dir, 'after.duckdb'));
  await db.run("SET checkpoint_threshold = '1GB'");
  for (const sql of FILL) await db.run(sql, sql.includes('$rows') ? { rows } : {});
  return longestStall(() => db.close());
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

const { values } = parseArgs({ options: { rows: { type: 'string' }, repeat: { type: 'string' } } });
const rows = Number(values.rows ?? 20_000);
const repeat = Number(values.repeat ?? 7);
const runs = {
  before: [] as { stall: number; total: number }[],
  after: [] as { stall: number; total: number }[],
};
for (let i = 0; i < repeat; i++) {
  for (const [name, fn] of [
    ['before', before],
    ['after', after],
  ] as const) {
    const dir = mkdtempSync(join(tmpdir(), 'tsync-close-'));
    try {
      runs[name].push(await fn(dir, rows));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}
for (const name of ['before', 'after'] as const) {
  const stall = median(runs[name].map((r) => r.stall)).toFixed(1);
  const total = median(runs[name].map((r) => r.total)).toFixed(1);
  process.stdout.write(
    `${name}: longest event-loop stall ${stall} ms, close ${total} ms (median of ${repeat}, ${rows} rows)\n`,
  );
}
