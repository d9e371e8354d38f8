/**
 * The global setup of the projects whose files use Redis (vitest.config.ts): starts a throwaway
 * redis-server on a free port when REDIS_URL is unset, so tests never touch a user's Redis; tests
 * read the URL with `redisUrl()` (./redis.ts). Stopped, and its folder removed, when the run ends.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { freePort } from './net.js';
import { waitForPing } from './redis-ping.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Unset in the projects that start no Redis. */
    redisUrl?: string;
  }
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
