/** Support for the worker tests: Redis clients that clean up after themselves, and a child-process bin. */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { projectRoot } from '../../src/util/paths.js';
import { onCleanup } from './cleanup.js';
import { redisUrl, uniquePrefix } from './redis.js';

export { onCleanup };

/**
 * Flags that keep the billing report out of a test worker whose test is not about it: its
 * schedule, an interval by default, runs once as the worker starts; a cron of once a year does not.
 * The worker then runs only the jobs its test looks at.
 */
export const NO_REPORT = ['--report-every', '0 0 1 1 *'] as const;

/** Deletes every key under `prefix` (SCAN, not KEYS, to stay polite on a shared Redis). */
export async function deleteKeys(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
    cursor = next;
    if (keys.length > 0) await redis.del(...keys);
  } while (cursor !== '0');
}

/** A Redis client closed after the test, which also deletes the keys of `prefix` then. */
export function testRedis(prefix: string): Redis {
  const redis = new Redis(redisUrl(), { maxRetriesPerRequest: 2 });
  onCleanup(async () => {
    await deleteKeys(redis, prefix);
    redis.disconnect();
  });
  return redis;
}

/**
 * The environment of a worker on `db` with a Redis prefix of its own (its keys deleted after the
 * test), an unreachable service and a placeholder key; `extra` overrides any of it.
 */
export function workerEnv(db: string, extra: Record<string, string> = {}): Record<string, string> {
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

export interface Child {
  readonly process: ChildProcess;
  /** Everything written so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (or the signal name) when the process ends. */
  readonly exited: Promise<number | string>;
  /** Resolves with the first JSON log line on stderr that satisfies `match`. */
  waitForLog(
    match: (line: Record<string, unknown>) => boolean,
    timeoutMs?: number,
  ): Promise<Record<string, unknown>>;
}

/** Spawns the built CLI (dist/, see `npm run build`), killed after the test if still running. */
export function spawnCli(args: readonly string[], env: Record<string, string>): Child {
  const child = spawn(process.execPath, [join(projectRoot(), 'bin', 'transcript-sync'), ...args], {
    env: { PATH: process.env['PATH'] ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const waiters: {
    match: (line: Record<string, unknown>) => boolean;
    resolve: (line: Record<string, unknown>) => void;
  }[] = [];
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  let partial = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString();
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop() ?? '';
    for (const text of lines) {
      const line = parseLine(text);
      if (!line) continue;
      for (const waiter of waiters.splice(0)) {
        if (waiter.match(line)) waiter.resolve(line);
        else waiters.push(waiter);
      }
    }
  });
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => resolve(code ?? signal ?? -1));
  });
  onCleanup(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
  });
  return {
    process: child,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitForLog(match, timeoutMs = 30_000) {
      for (const text of err.split('\n')) {
        const line = parseLine(text);
        if (line && match(line)) return Promise.resolve(line);
      }
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no matching log line within ${timeoutMs} ms; stderr:\n${err}`)),
          timeoutMs,
        );
        waiters.push({
          match,
          resolve: (line) => {
            clearTimeout(timer);
            resolve(line);
          },
        });
        exited.then((code) => {
          clearTimeout(timer);
          reject(new Error(`process exited (${code}) before a matching log line; stderr:\n${err}`));
        });
      });
    },
  };
}

function parseLine(text: string): Record<string, unknown> | undefined {
  if (!text.startsWith('{')) return undefined;
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/** Polls `probe` every 50 ms until it gives a value (not undefined or false); throws naming `what` after `timeoutMs`. */
export async function eventually<T>(
  probe: () => Promise<T | undefined> | T | undefined,
  what: string,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
