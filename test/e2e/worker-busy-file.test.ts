/**
 * The worker process beside `sync` runs from the command line on the same file, while the service
 * grows: the runs take turns with the file's writer lock, a run that finds it busy is put back
 * for later, the worker never exits for it, and the mirror is exact at the end (build first:
 * `npm test` does).
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import { writerLockPath } from '../../src/store/file/writer-lock.js';
import { type CliResult, runCli, shownLines } from '../helpers/cli.js';
import { expectMirror } from '../helpers/mirror.js';
import { redisUrl, uniquePrefix } from '../helpers/redis.js';
import { tempDir } from '../helpers/tmp.js';
import { eventually, onCleanup, spawnCli, testRedis } from '../helpers/worker.js';

/** ms the command-line syncs keep starting beside the worker. */
const CONTENTION_MS = 3_000;

describe('worker beside command-line syncs', () => {
  it('stays up while syncs hold the file; each sync exits 0 or says the file is busy; the mirror is exact', async () => {
    const sim = await startSimulator({
      preRecorded: 20,
      live: 20,
      utterancesPerJob: 1,
      wordsPerUtterance: 2,
    });
    onCleanup(() => sim.close());
    const prefix = uniquePrefix('worker-busy');
    testRedis(prefix);
    const db = join(tempDir(), 'transcripts.duckdb');
    const env = {
      TSYNC_API_KEY: sim.apiKey,
      TSYNC_BASE_URL: sim.url,
      TSYNC_DB: db,
      TSYNC_RATE_LIMIT: '10000',
      TSYNC_PAGE_SIZE: '10',
    };
    // The service grows while command-line syncs keep taking the file, one after the other.
    let grown = 0;
    const growth = setInterval(() => {
      const job = sim.data.add({ kind: grown % 2 === 0 ? 'pre-recorded' : 'live', status: 'queued' });
      sim.data.advance(String(job.id), 'done');
      grown += 1;
    }, 100);
    const outcomes: CliResult[] = [];
    let stop = false;
    const syncs = (async () => {
      while (!stop) outcomes.push(await runCli(['sync', '--lock-wait', '5s'], env));
    })();
    // The worker starts while the first sync holds the file.
    await eventually(() => existsSync(writerLockPath(db)), 'the first sync to take the file');
    const worker = spawnCli(
      ['worker', '--metrics-port', '0', '--every', '2s', '--full-every', '7s', '--job-lock', '5s'],
      {
        ...env,
        TSYNC_LOCK_WAIT: '1s',
        REDIS_URL: redisUrl(),
        TSYNC_REDIS_PREFIX: prefix,
        TSYNC_LOG_LEVEL: 'info',
      },
    );
    await worker.waitForLog((line) => line['msg'] === 'worker started');
    await delay(CONTENTION_MS);
    stop = true;
    await syncs;
    clearInterval(growth);
    expect(grown).toBeGreaterThan(10);

    const pid = worker.process.pid;
    const holders = [
      `is being written by pid ${pid} (transcript-sync worker)`,
      `is held by another process (PID ${pid})`,
    ];
    for (const sync of outcomes) {
      if (sync.code === 0) continue;
      // One line, DB_BUSY: the writer lock held by the worker's run, or the file opened by its
      // billing report (a reader, which DuckDB lets no writer in beside).
      const lines = shownLines(sync.stderr);
      expect(sync.code, sync.stderr).toBe(1);
      expect(lines, sync.stderr).toHaveLength(1);
      expect(JSON.parse(sync.stderr.trim()), sync.stderr).toMatchObject({ code: 'DB_BUSY', exit_code: 1 });
      const named = holders.some((holder) => lines[0]?.includes(`${resolve(db)} ${holder}`));
      expect(named, sync.stderr).toBe(true);
    }
    expect(outcomes[0]?.code, outcomes[0]?.stderr).toBe(0);

    // Two runs of each kind that end after the last change: the second started after it.
    const lastChange = Date.now();
    const finished = new Map<string, number>();
    await worker.waitForLog((line) => {
      if (line['msg'] !== 'sync finished' || Date.parse(String(line['time'])) < lastChange) return false;
      for (const k of (line['kinds'] as { kind: string; outcome: string }[]) ?? [])
        if (k.outcome === 'ok') finished.set(k.kind, (finished.get(k.kind) ?? 0) + 1);
      return (finished.get('pre-recorded') ?? 0) >= 2 && (finished.get('live') ?? 0) >= 2;
    }, 30_000);

    // Up all along: only the signal stops it.
    expect(worker.process.exitCode, worker.stderr()).toBe(null);
    worker.process.kill('SIGTERM');
    expect(await worker.exited, worker.stderr()).toBe(0);
    await expectMirror(db, sim.data.all() as unknown as Record<string, unknown>[]);
  });
});
