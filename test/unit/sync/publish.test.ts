import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  watch,
} from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import { PUBLISHED_TABLES, publishDataset } from '../../../src/analytics/publish/publish.js';
import { runLines } from '../../../src/cli/sync-summary.js';
import { syncDefaults } from '../../../src/config/sync-defaults.js';
import { UpstreamError } from '../../../src/errors.js';
import { createLogger } from '../../../src/log.js';
import { type PipelineSummary, runPipeline } from '../../../src/pipeline.js';
import {
  generateDataset,
  type Simulator,
  type SimulatorOptions,
  startSimulator,
} from '../../../src/simulator/index.js';
import { openReadOnly } from '../../../src/store/open-file.js';
import { copyDataset } from '../../../src/store/statements/datasets.js';
import { sqlPathLiteral } from '../../../src/util/sql-literal.js';
import { runMain, shownLines } from '../../helpers/cli.js';
import { FakeListing } from '../../helpers/listing-fake.js';
import { migratedDb } from '../../helpers/migrated-db.js';
import { syncOnce } from '../../helpers/sync.js';
import { fileTempDir, tempDir } from '../../helpers/tmp.js';

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

interface Manifest {
  as_of: string;
  kinds?: Record<string, { as_of: string | null; stale: boolean; error: string | null }>;
  raw: boolean;
  tables: Record<
    string,
    { rows: number; partitions: { kind: string; month: string; rows: number; file: string | null }[] }
  >;
}

/** Every file under `dir`, relative, with the identity a rename changes (inode) and its mtime. */
function files(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const s = statSync(path);
    out.set(relative(dir, path), `${s.ino}:${s.mtimeMs}`);
  }
  return out;
}

/** 24 jobs over six weeks, the same records at every start: (kind, month) partitions of two months a kind. */
const ACCOUNT: SimulatorOptions = {
  seed: 1818,
  preRecorded: 12,
  live: 12,
  utterancesPerJob: 2,
  wordsPerUtterance: 3,
  from: new Date('2026-09-20T00:00:00.000Z'),
  to: new Date('2026-11-01T00:00:00.000Z'),
};

async function startSim(): Promise<Simulator> {
  sim = await startSimulator(ACCOUNT);
  return sim;
}

/**
 * The account's first sync with --publish (not raw), run once for the file by the first test that
 * asks: the first test reads its file and folder, the others publish again into copies of them.
 */
const shared = fileTempDir('tsync-publish-');
afterAll(() => shared.remove());
let firstPublish: Promise<{ db: string; dir: string; summary: PipelineSummary }> | undefined;

async function publishFirst(): Promise<{ db: string; dir: string; summary: PipelineSummary }> {
  const simulator = await startSimulator(ACCOUNT);
  try {
    const db = join(shared.dir, 'pub.duckdb');
    const dir = join(shared.dir, "team's dataset");
    const summary = await syncOnce(simulator, db, { publish: { dir, raw: false } });
    return { db, dir, summary };
  } finally {
    await simulator.close();
  }
}

/** A simulator of the account, and copies of the file and the folder its first publish left. */
async function published(): Promise<{ simulator: Simulator; db: string; dir: string }> {
  firstPublish ??= publishFirst();
  const first = await firstPublish;
  const db = join(tempDir(), 'pub.duckdb');
  copyFileSync(first.db, db);
  const dir = join(tempDir(), 'dataset');
  cpSync(first.dir, dir, { recursive: true });
  return { simulator: await startSim(), db, dir };
}

describe('sync --publish', () => {
  test('writes every table as Parquet by kind and month that reads back equal to the database, with a manifest', async () => {
    firstPublish ??= publishFirst();
    const { db, dir, summary } = await firstPublish;
    expect(summary.outcome).toBe('ok');
    expect(summary.published?.written).toBeGreaterThan(0);
    expect(summary.published?.unchanged).toBe(0);

    const manifest = JSON.parse(readFileSync(join(dir, '_manifest.json'), 'utf8')) as Manifest;
    expect(Object.keys(manifest.tables).sort()).toEqual(PUBLISHED_TABLES.map((t) => t.table).sort());
    expect(manifest.raw).toBe(false);
    expect(Date.parse(manifest.as_of)).not.toBeNaN();

    const reader = await openReadOnly(db);
    try {
      for (const { table, dataset } of PUBLISHED_TABLES) {
        // The dataset's rows as the database holds them now, copied whole into one file.
        const whole = join(tempDir(), `${table}.parquet`);
        await copyDataset(reader, dataset, {}, { path: whole, partitionBy: [], setting: 'test' });
        const sql = `SELECT * FROM read_parquet(${sqlPathLiteral(whole, 'test')})`;
        const columns = (await reader.all<{ column_name: string }>(`DESCRIBE ${sql}`))
          .map((c) => `"${c.column_name}"`)
          .join(', ');
        const parquet = `read_parquet(${sqlPathLiteral(join(dir, table, '**', '*.parquet'), 'test')}, hive_partitioning = true)`;
        // Each distinct row with how often each side holds it, both sides read once: `missing` and
        // `extra` are the rows of either side the other lacks, counted as EXCEPT ALL counts them.
        const [counts] = await reader.all<{ db: number; files: number; missing: number; extra: number }>(
          `SELECT sum(in_db)::BIGINT AS db, sum(in_files)::BIGINT AS files,
                  sum(greatest(in_db - in_files, 0))::BIGINT AS missing,
                  sum(greatest(in_files - in_db, 0))::BIGINT AS extra
           FROM (SELECT ${columns}, count(*) FILTER (WHERE side = 0) AS in_db,
                        count(*) FILTER (WHERE side = 1) AS in_files
                 FROM (SELECT ${columns}, 0 AS side FROM (${sql})
                       UNION ALL SELECT ${columns}, 1 AS side FROM ${parquet})
                 GROUP BY ALL)`,
        );
        expect(counts, table).toEqual({ db: counts?.files, files: counts?.db, missing: 0, extra: 0 });
        expect(counts?.db, table).toBeGreaterThan(0);
        expect(manifest.tables[table]?.rows, table).toBe(counts?.db);
        expect(columns).not.toContain('"raw"');
      }
    } finally {
      await reader.close();
    }
  }, 60_000);

  test('a publish after one new job rewrites only that job’s partitions and the manifest', async () => {
    const { simulator, db, dir } = await published();
    const before = files(dir);

    const job = simulator.data.add({
      kind: 'live',
      status: 'done',
      // Before this run starts: its window ends at its start, exclusive.
      createdAt: new Date(Date.now() - 60_000),
      utterances: 2,
      words: 3,
    });
    const month = String(job['created_at']).slice(0, 7);
    const summary = await syncOnce(simulator, db, { publish: { dir, raw: false } });
    expect(summary.kinds.reduce((sum, k) => sum + k.inserted, 0)).toBe(1);
    const after = files(dir);

    const changed = [...after].filter(([path, id]) => before.get(path) !== id).map(([path]) => path);
    const partition = `kind=live/month=${month}/`;
    expect(changed).toContain('_manifest.json');
    expect(changed).toContain(`jobs/${partition}data_0.parquet`);
    expect(changed).toContain(`words/${partition}data_0.parquet`);
    expect(changed.filter((path) => path !== '_manifest.json' && !path.includes(partition))).toEqual([]);
    expect([...before.keys()].filter((path) => !after.has(path))).toEqual([]);
    expect(summary.published?.unchanged).toBeGreaterThan(summary.published?.written ?? 0);

    // Nothing new: nothing but the manifest is written.
    const again = await syncOnce(simulator, db, { publish: { dir, raw: false } });
    expect(again.published?.written).toBe(0);
    const third = files(dir);
    expect([...third].filter(([path, id]) => after.get(path) !== id).map(([path]) => path)).toEqual([
      '_manifest.json',
    ]);
  }, 60_000);

  test('--publish-raw keeps jobs.raw; switching it rewrites the jobs partitions', async () => {
    const { simulator, db, dir } = await published();
    const summary = await syncOnce(simulator, db, { publish: { dir, raw: true } });
    const manifest = JSON.parse(readFileSync(join(dir, '_manifest.json'), 'utf8')) as Manifest;
    expect(manifest.raw).toBe(true);
    expect(summary.published?.written).toBe(manifest.tables['jobs']?.partitions.length);
    const reader = await openReadOnly(db);
    try {
      const [row] = await reader.all<{ n: number }>(
        `SELECT count(*) AS n FROM read_parquet(${sqlPathLiteral(join(dir, 'jobs', '**', '*.parquet'), 'test')}) WHERE raw IS NOT NULL`,
      );
      expect(row?.n).toBe(manifest.tables['jobs']?.rows);
    } finally {
      await reader.close();
    }
  }, 60_000);

  test('a kind that fails leaves the other kind’s jobs published, the manifest naming the failed one stale', async () => {
    sim = await startSimulator({
      preRecorded: 2,
      live: 6,
      utterancesPerJob: 2,
      from: new Date(Date.now() - 3 * 86_400_000),
      to: new Date(Date.now() - 3_600_000),
      recordPadding: { kind: 'pre-recorded', bytes: 1_200_000 },
    });
    const db = await migratedDb('pub.duckdb');
    const dir = tempDir();
    const env = { TSYNC_BASE_URL: sim.url, TSYNC_API_KEY: sim.apiKey };
    const limits = ['--max-record-bytes', '1MiB', '--page-bytes', '256KiB'];
    const result = await runMain(['sync', '--db', db, '--publish', dir, ...limits], env);
    expect(result.code, result.stderr).toBe(1);
    const shown = shownLines(result.stderr).join('\n');
    expect(shown).toMatch(/^live: ok: 6 jobs/m);
    expect(shown).toMatch(
      new RegExp(`^published to ${dir}: .*; pre-recorded stale: as of its last successful sync`, 'm'),
    );
    const manifest = JSON.parse(readFileSync(join(dir, '_manifest.json'), 'utf8')) as Manifest;
    expect(manifest.tables['jobs']?.rows).toBe(6);
    expect(manifest.kinds?.['live']).toMatchObject({ stale: false, error: null });
    expect(Date.parse(manifest.kinds?.['live']?.as_of ?? '')).not.toBeNaN();
    expect(manifest.kinds?.['pre-recorded']).toMatchObject({ as_of: null, stale: true });
    expect(manifest.kinds?.['pre-recorded']?.error).toMatch(/--max-record-bytes/);
  }, 60_000);

  test('a run where no kind synced, or that was stopped, says the dataset was not refreshed', async () => {
    const records = generateDataset({
      seed: 4,
      preRecorded: 4,
      live: 4,
      utterancesPerJob: 1,
      wordsPerUtterance: 2,
      from: new Date('2026-10-05T00:00:00.000Z'),
      to: new Date('2026-11-01T00:00:00.000Z'),
    });
    const db = await migratedDb('pub.duckdb');
    const dir = tempDir();
    const plan = { ...syncDefaults(), pageSize: 10, publish: { dir, raw: false } };
    const resources = (source: FakeListing, signal?: AbortSignal) => ({
      db,
      lockWait: 5_000,
      checkpoints: 'duckdb' as const,
      redisUrl: null,
      redisPrefix: 'tsync-test',
      source,
      ...(signal ? { signal } : {}),
    });
    expect((await runPipeline(plan, resources(new FakeListing(records)))).published?.stale).toEqual([]);
    const manifest = readFileSync(join(dir, '_manifest.json'), 'utf8');

    const down = new FakeListing(records, {
      beforePage: () => {
        throw new UpstreamError('the service answered 503', { retryable: true, status: 503 });
      },
    });
    const failed = await runPipeline(plan, resources(down));
    expect(failed.published).toBeUndefined();
    expect(failed.notPublished).toEqual({ dir, reason: 'the sync of pre-recorded and live failed' });
    expect(runLines(failed).at(-1)?.text).toBe(
      `not published to ${dir}: the sync of pre-recorded and live failed; the dataset keeps its previous refresh`,
    );

    const stop = new AbortController();
    const stopping = new FakeListing(records, { beforePage: () => stop.abort(new Error('SIGINT')) });
    const stopped = await runPipeline(plan, resources(stopping, stop.signal));
    expect(stopped.notPublished?.reason).toBe('the run was interrupted');
    expect(readFileSync(join(dir, '_manifest.json'), 'utf8')).toBe(manifest);

    // Stopped once the publish has begun: it ends there, not published, the manifest as it was.
    const during = new AbortController();
    const lines: string[] = [];
    const logger = createLogger(
      'info',
      {},
      {
        stream: {
          write: (line: string) => {
            lines.push(line);
            if (line.includes('publishing to')) during.abort(new Error('SIGINT'));
          },
        },
      },
    );
    const late = await runPipeline(plan, {
      ...resources(new FakeListing(records), during.signal),
      logger,
    });
    expect(lines.some((line) => line.includes('publishing to'))).toBe(true);
    expect(late.published).toBeUndefined();
    expect(late.notPublished?.reason).toBe('the run was interrupted');
    expect(readFileSync(join(dir, '_manifest.json'), 'utf8')).toBe(manifest);
  }, 60_000);

  test('sync stopped by SIGTERM during its publish exits 143 and says the dataset was not refreshed', async () => {
    // A file that holds the account: the run finds nothing new, and its publish, to a folder of
    // its own, writes every partition.
    const { simulator, db } = await published();
    const dir = join(tempDir(), 'stopped');
    mkdirSync(dir);
    // The publish makes its staging folder first: the signal comes while it copies the tables.
    const watcher = watch(dir, (_event, name) => {
      if (!String(name).startsWith('.publish-')) return;
      watcher.close();
      process.emit('SIGTERM', 'SIGTERM');
    });
    try {
      const env = { TSYNC_BASE_URL: simulator.url, TSYNC_API_KEY: simulator.apiKey };
      const result = await runMain(['sync', '--db', db, '--publish', dir], env);
      expect(result.code).toBe(143);
      expect(shownLines(result.stderr)).toContain(
        `not published to ${dir}: the run was interrupted; the dataset keeps its previous refresh`,
      );
      expect(existsSync(join(dir, '_manifest.json'))).toBe(false);
    } finally {
      watcher.close();
    }
  });

  test("a folder that cannot hold files fails the publish with mkdir's error, once, instead of retrying it", async () => {
    const db = await openReadOnly(await migratedDb('proc.duckdb'));
    try {
      // On /proc a mkdir says ENOENT with its parent there: `mkdir -p` as node does it retries forever.
      await expect(publishDataset({ db, dir: '/proc/tsync-published/x' })).rejects.toMatchObject({
        code: 'ENOENT',
      });
    } finally {
      await db.close();
    }
  });

  test.each(['sync', 'worker'])(
    '%s takes --publish DIR; --publish-raw alone is a usage error',
    async (name) => {
      const env = {
        TSYNC_API_KEY: 'k',
        TSYNC_BASE_URL: 'http://127.0.0.1:9',
        REDIS_URL: 'redis://127.0.0.1:9',
      };
      const result = await runMain([name, '--publish-raw', '--db', join(tempDir(), 'x.duckdb')], env);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('--publish-raw: applies only with --publish DIR');
      expect((await runMain([name, '--help'])).stdout).toContain('--publish DIR');
    },
  );
});
