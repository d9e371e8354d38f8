/**
 * What the worker checks before it starts: a busy metrics or webhook port, a webhook port that is
 * the metrics port or an unwritable report directory is one line and exit 2 before the database is
 * locked; a missing REDIS_URL is named as the worker's need. In-process (runMain), as bin/transcript-sync runs it; the worker process itself
 * and its signals are test/e2e/worker-process.test.ts, /healthz on a refused key worker.test.ts.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writerLockPath } from '../../../src/store/file/writer-lock.js';
import { connectRedis } from '../../../src/worker/connection.js';
import { type CliResult, runMain, shownLines } from '../../helpers/cli.js';
import { freePort } from '../../helpers/net.js';
import { tempDir } from '../../helpers/tmp.js';
import { onCleanup, workerEnv } from '../../helpers/worker.js';

async function occupiedPort(): Promise<number> {
  const server: Server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  onCleanup(() => new Promise((r) => server.close(() => r())));
  const address = server.address();
  return typeof address === 'object' && address ? address.port : 0;
}

/** The one line a usage error (exit 2) shows. */
function usageLine(result: CliResult): string {
  expect(result.code, result.stderr).toBe(2);
  const lines = shownLines(result.stderr);
  expect(lines, result.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^transcript-sync: /);
  return lines[0] as string;
}

describe('worker startup checks', () => {
  it('names a Redis it cannot reach by its URL without the password', async () => {
    const url = `redis://worker:s3cret-pw@127.0.0.1:${await freePort()}/0`;
    const failure = await connectRedis(url, 'startup-test').catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(Error);
    const { message } = failure as Error;
    expect(message).toContain(`cannot reach Redis at ${url.replace('s3cret-pw', '*****')}`);
    expect(message).not.toContain('s3cret-pw');
  });

  it('a busy --metrics-port is one line naming the flag, exit 2, before the database is locked', async () => {
    const db = join(tempDir(), 'transcripts.duckdb');
    const port = await occupiedPort();
    const line = usageLine(await runMain(['worker', '--metrics-port', String(port)], workerEnv(db)));
    expect(line).toContain(`--metrics-port: 127.0.0.1:${port} is already in use`);
    expect(line).toContain('0 for any free one');
    expect(existsSync(writerLockPath(db, 'worker'))).toBe(false);
  });

  it('a --webhook-port that is the --metrics-port is one line naming both, exit 2, before anything starts', async () => {
    const db = join(tempDir(), 'transcripts.duckdb');
    const port = String(await freePort());
    const env = workerEnv(db, { TSYNC_WEBHOOK_SECRET: 'wh-0123456789abcdef0123456789abcdef-secret' });
    const line = usageLine(await runMain(['worker', '--metrics-port', port, '--webhook-port', port], env));
    expect(line).toContain(`--webhook-port: ${port} is the --metrics-port too`);
    expect(line).not.toContain('another worker');
    // Nothing registered in Redis for the worker that did not start.
    const redis = await connectRedis(env['REDIS_URL'] as string, 'startup-test');
    onCleanup(() => redis.quit().then(() => {}));
    expect(await redis.keys(`${env['TSYNC_REDIS_PREFIX']}:*`)).toEqual([]);
  });

  it('a busy --webhook-port is one line naming the flag, exit 2, before the database is locked', async () => {
    const db = join(tempDir(), 'transcripts.duckdb');
    const port = await occupiedPort();
    const env = workerEnv(db, { TSYNC_WEBHOOK_SECRET: 'wh-0123456789abcdef0123456789abcdef-secret' });
    const line = usageLine(
      await runMain(['worker', '--metrics-port', '0', '--webhook-port', String(port)], env),
    );
    expect(line).toContain(`--webhook-port: 127.0.0.1:${port} is already in use`);
    expect(existsSync(writerLockPath(db, 'worker'))).toBe(false);
    const redis = await connectRedis(env['REDIS_URL'] as string, 'startup-test');
    onCleanup(() => redis.quit().then(() => {}));
    expect(await redis.keys(`${env['TSYNC_REDIS_PREFIX']}:*`)).toEqual([]);
  });

  it('a --report-dir that is a file, or on /proc, is one line naming the flag, exit 2', async () => {
    const dir = tempDir();
    const db = join(dir, 'transcripts.duckdb');
    const file = join(dir, 'reports');
    writeFileSync(file, 'not a directory');
    const asFile = await runMain(['worker', '--metrics-port', '0', '--report-dir', file], workerEnv(db));
    expect(usageLine(asFile)).toContain(`--report-dir: ${file} is a file, not a directory`);
    expect(existsSync(writerLockPath(db, 'worker'))).toBe(false);

    const started = Date.now();
    const onProc = await runMain(
      ['worker', '--metrics-port', '0', '--report-dir', '/proc/tsync-reports'],
      workerEnv(db),
    );
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(usageLine(onProc)).toContain('/proc, a kernel pseudo-filesystem');
  });

  it('without REDIS_URL the worker says it needs Redis, not --checkpoints', async () => {
    const db = join(tempDir(), 'transcripts.duckdb');
    const { REDIS_URL: _r, ...rest } = workerEnv(db);
    const line = usageLine(await runMain(['worker'], rest));
    expect(line).toContain('REDIS_URL: the worker needs Redis for its queue; set REDIS_URL or --redis-url');
    expect(line).not.toContain('--checkpoints');
  });
});
