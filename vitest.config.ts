import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

/**
 * Two tiers, one folder each. test/e2e/: tests that start the built program (bin/ over dist/, so
 * they need `npm run build`), the worker process, SIGINT/SIGTERM/SIGKILL, another user's
 * permissions, or the benches. test/unit/: in-process (the CLI through runMain), no build step;
 * test/unit/repo/test-tiers.test.ts fails when a file there starts the build.
 *
 * Redis: the e2e tier starts a throwaway redis-server (test/helpers/redis-setup.ts); the unit tier
 * is two projects, `unit` (no Redis) and `unit-redis` (the files `usesRedis` picks, with the
 * server). `--project 'unit*'` runs the whole tier. A file that reads the URL without being picked
 * fails with a line that says so (test/helpers/redis.ts).
 *
 * The suite is CPU-bound on two cores: less work per test shortens it, more workers do not
 * (docs/decisions/0018-two-test-tiers.md).
 */

/** A unit file uses Redis when it calls the helpers that hand out its URL, a client or a worker. */
const USES_REDIS = /\b(redisUrl|testRedis|startOwnRedis|workerEnv)\(|helpers\/worker-in-process\.js/;

function unitFiles(dir = 'test/unit'): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return unitFiles(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

const usesRedis = unitFiles().filter((file) => USES_REDIS.test(readFileSync(file, 'utf8')));

/** The unit tier's settings, shared by its two projects. */
const unitTier = {
  // CPU-bound in-process files: 3 at a time on 2 cores take less CPU than 4 (each worker's
  // imports, less contention) and no longer than 2.
  maxWorkers: 3,
  // Projects with their own maxWorkers run as groups, one after the other (vitest requires a
  // groupOrder each): the e2e tier first, then this one. Both tiers in one group of 4 workers
  // take as much CPU and no less time.
  sequence: { groupOrder: 1 },
  // One module cache for the tier's files in each worker: the code, DuckDB's binding, zod,
  // BullMQ... are imported once a worker, not once a file (about a quarter of the tier's CPU).
  // Hooks a file needs are registered by the setup file, not a helper's top level
  // (test/helpers/cleanup.ts says why).
  isolate: false,
} as const;

export default defineConfig({
  test: {
    globalSetup: ['test/helpers/global-setup.ts'],
    setupFiles: ['test/helpers/after-each-test.ts'],
    // ms. Tests spawn processes, servers and DuckDB files: room on a shared 2-core machine.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Child processes: test/unit/repo/docs-commands.test.ts changes the working directory, which a
    // worker thread may not.
    pool: 'forks',
    // More workers than cores for the e2e tier: its files wait on child processes, simulator
    // latency and BullMQ locks much of the time, and 4 keep both cores busy. The unit tier sets its own.
    maxWorkers: 4,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          exclude: usesRedis,
          ...unitTier,
        },
      },
      {
        extends: true,
        test: {
          name: 'unit-redis',
          include: usesRedis,
          globalSetup: ['test/helpers/redis-setup.ts'],
          ...unitTier,
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          sequence: { groupOrder: 0 },
          include: ['test/e2e/**/*.test.ts'],
          globalSetup: ['test/helpers/redis-setup.ts'],
          // The same shared module cache: the e2e files import the simulator, DuckDB, BullMQ... too.
          // What a test starts (children, servers, Redis clients) it undoes through the setup file's
          // cleanups or its own afterEach.
          isolate: false,
        },
      },
    ],
  },
});
