/**
 * What the worker process checks and tells before and while it runs: a busy metrics port or an
 * unwritable report directory is one line and exit 2 before the database is locked; a refused key
 * makes /healthz fail with the reason; a missing REDIS_URL is named as the worker's need.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writerLockPath } from '../../src/load/file/writer-lock.js';
import { startSimulator } from '../../src/simulator/index.js';
import { shownLines } from '../helpers/cli.js';
import { redisUrl, uniquePrefix } from '../helpers/redis.js';
import { tempDir } from '../helpers/tmp.js';
import { onCleanup, spawnCli, testRedis } from '../helpers/worker.js';

function env(db: string, extra: Record<string, string> = {}): Record<string, string> {
  const prefix = uniquePrefix('startup');
  testRedis(prefix);
  return {
    TSYNC_API_KEY: 'k',
    TSYNC_BASE_URL: 'http://127.0.0.1:9',
    TSYNC_DB: db,
    REDIS_URL: redisUrl(),
    TSYNC_REDIS_PREFIX: prefix,
    TSYNC_LOG_LEVEL: 'info',
    ...extra,
  };
}

async function occupiedPort(): Promise<number> {
  const server: Server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  onCleanup(() => new Promise((r) => server.close(() => r())));
  const address = server.address();
  return typeof address === 'object' && address ? address.port : 0;
}

function oneLine(stderr: string): string {
  const lines = shownLines(stderr);
  expect(lines, stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^transcript-sync: /);
  return lines[0] as string;
}

describe('worker startup checks', () => {
  it('a busy --metrics-port is one line naming the flag, exit 2, before the database is locked', async () => {
    const db = join(tempDir(), 'transcripts.duckdb');
    const port = await occupiedPort();
    const worker = spawnCli(['worker', '--metrics-port', String(port)], env(db));
    expect(await worker.exited).toBe(2);
    const line = oneLine(worker.stderr());
    expect(line).toContain(`--metrics-port: 127.0.0.1:${port} is already in use`);
    expect(line).toContain('0 for any free one');
    expect(existsSync(writerLockPath(db))).toBe(false);
  });

  it('a --report-dir that is a file, or on /proc, is one line naming the flag, exit 2', async () => {
    const dir = tempDir();
    const db = join(dir, 'transcripts.duckdb');
    const file = join(dir, 'reports');
    writeFileSync(file, 'not a directory');
    const worker = spawnCli(['worker', '--metrics-port', '0', '--report-dir', file], env(db));
    expect(await worker.exited).toBe(2);
    expect(oneLine(worker.stderr())).toContain(`--report-dir: ${file} is a file, not a directory`);
    expect(existsSync(writerLockPath(db))).toBe(false);

    const started = Date.now();
    const proc = spawnCli(['worker', '--metrics-port', '0', '--report-dir', '/proc/tsync-reports'], env(db));
    expect(await proc.exited).toBe(2);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(oneLine(proc.stderr())).toContain('/proc, a kernel pseudo-filesystem');
  });

  it('without REDIS_URL the worker says it needs Redis, not --checkpoints', async () => {
    const db = join(tempDir(), 'transcripts.duckdb');
    const { REDIS_URL: _r, ...rest } = env(db);
    const worker = spawnCli(['worker'], rest);
    expect(await worker.exited).toBe(2);
    const line = oneLine(worker.stderr());
    expect(line).toContain('REDIS_URL: the worker needs Redis for its queue; set REDIS_URL or --redis-url');
    expect(line).not.toContain('--checkpoints');
  });
});

describe('worker health', () => {
  it('/healthz is 503 naming the error when the last run failed with a refused key', async () => {
    const sim = await startSimulator({ preRecorded: 3, live: 3 });
    onCleanup(() => sim.close());
    const db = join(tempDir(), 'transcripts.duckdb');
    const worker = spawnCli(
      ['worker', '--metrics-port', '0', '--every', '1h', '--kind', 'live'],
      env(db, { TSYNC_BASE_URL: sim.url, TSYNC_API_KEY: 'wrong-key' }),
    );
    const serving = await worker.waitForLog((l) => l['msg'] === 'serving /metrics and /healthz');
    await worker.waitForLog((l) => l['msg'] === 'job failed for good');
    const response = await fetch(`${String(serving['url'])}/healthz`);
    expect(response.status).toBe(503);
    const report = (await response.json()) as Record<string, unknown>;
    expect(report['redis']).toBe('ok');
    expect(report['reasons']).toEqual([
      expect.stringMatching(
        /^the last live sync failed with an error no retry can fix \(AUTH\): the service refused the API key/,
      ),
    ]);
    expect(report['kinds']).toMatchObject({ live: { last_outcome: 'failed', last_error_retryable: false } });
    expect(JSON.stringify(report)).not.toContain('wrong-key');
    worker.process.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
  });
});
