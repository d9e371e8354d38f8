/**
 * Starts a throwaway redis-server on a free port when REDIS_URL is unset, so tests never touch a
 * user's Redis; tests read the URL with `inject('redisUrl')` (see ./redis.ts).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { freePort } from './net.js';

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string;
  }
}

async function waitForPing(port: number, child: ChildProcess): Promise<void> {
  const { Redis } = await import('ioredis');
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`redis-server exited with code ${child.exitCode}`);
    const client = new Redis({
      port,
      host: '127.0.0.1',
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    try {
      await client.connect();
      if ((await client.ping()) === 'PONG') return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    } finally {
      client.disconnect();
    }
  }
  throw new Error('redis-server did not answer PING within 10 s');
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const fromEnv = process.env['REDIS_URL'];
  if (fromEnv) {
    project.provide('redisUrl', fromEnv);
    return async () => {};
  }
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'tsync-redis-'));
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    {
      stdio: 'ignore',
    },
  );
  const spawned = new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', (error) =>
      reject(
        new Error(
          `cannot start redis-server (${error.message}); install it (apt-get install -y redis-server) or set REDIS_URL`,
        ),
      ),
    );
  });
  await spawned;
  await waitForPing(port, child);
  project.provide('redisUrl', `redis://127.0.0.1:${port}`);
  return async () => {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    rmSync(dir, { recursive: true, force: true });
  };
}
