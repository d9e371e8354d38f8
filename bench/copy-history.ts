/**
 * A history of H x N jobs made from a stored history of H, for measuring commands at a history a
 * back-fill on this machine takes hours to build: the file's jobs and their children copied N - 1
 * times with DuckDB (ids suffixed `~k`, created_at and completed_at moved back k times the history's
 * span, the rest as stored, the records as received and their hashes included). Same bytes a job as the original; the
 * copies are written by one INSERT each, so their row groups are full, not a back-fill's.
 *
 *   node dist/bench/copy-history.js FROM.duckdb TO.duckdb N
 */
import { copyFileSync, existsSync, rmSync } from 'node:fs';
import { DuckDBInstance } from '@duckdb/node-api';

/** The tables of a job's rows, each keyed by (job_id, job_created_at). */
const CHILDREN = ['job_records', 'utterances', 'words', 'module_results'] as const;

async function main(): Promise<void> {
  const [from, to, timesText] = process.argv.slice(2);
  const times = Number(timesText);
  if (!from || !to || !Number.isInteger(times) || times < 2) {
    throw new Error('usage: copy-history.js FROM.duckdb TO.duckdb N (N >= 2: the history N times)');
  }
  if (existsSync(`${from}.wal`)) throw new Error(`${from} has a WAL: open and close it with the CLI first`);
  rmSync(`${to}.wal`, { force: true });
  copyFileSync(from, to);
  const instance = await DuckDBInstance.create(to, { threads: '2', memory_limit: '4GB' });
  const db = await instance.connect();
  try {
    const span = await db.runAndReadAll(
      'SELECT epoch_us(max(created_at)) - epoch_us(min(created_at)) + 1000000 FROM jobs',
    );
    const spanUs = BigInt(String(span.getRows()[0]?.[0] ?? 0));
    for (let k = 1; k < times; k++) {
      const shift = `to_seconds(${Number((spanUs * BigInt(k)) / 1_000_000n)})`;
      await db.run('BEGIN TRANSACTION');
      await db.run(
        `INSERT INTO jobs SELECT * REPLACE (id || '~${k}' AS id, created_at - ${shift} AS created_at,
           completed_at - ${shift} AS completed_at) FROM jobs WHERE NOT contains(id, '~')`,
      );
      for (const table of CHILDREN) {
        await db.run(
          `INSERT INTO ${table} SELECT * REPLACE (job_id || '~${k}' AS job_id, job_created_at - ${shift} AS job_created_at)
           FROM ${table} WHERE NOT contains(job_id, '~')`,
        );
      }
      await db.run('COMMIT');
      await db.run('CHECKPOINT');
      process.stderr.write(`copy ${k} of ${times - 1} written\n`);
    }
  } finally {
    db.closeSync();
    instance.closeSync();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
