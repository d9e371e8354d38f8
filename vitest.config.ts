import { defineConfig } from 'vitest/config';

/**
 * Two tiers, one folder each. test/e2e/: tests that start the built program (bin/ over dist/, so
 * they need `npm run build`), the worker process, SIGINT/SIGTERM/SIGKILL, another user's
 * permissions, or the benches. test/unit/: in-process (the CLI through runMain), no build step;
 * test/unit/repo/test-tiers.test.ts fails when a file there starts the build.
 *
 * Redis: each project's global setup listens on a port for it, and starts a throwaway
 * redis-server behind that port only when a test first connects (test/helpers/redis-setup.ts), so
 * a run of files that use no Redis starts none and needs none installed.
 *
 * The suite is CPU-bound on two cores: less work per test shortens it, more workers do not
 * (docs/decisions/0018-two-test-tiers.md).
 */
export default defineConfig({
  test: {
    globalSetup: ['test/helpers/global-setup.ts', 'test/helpers/redis-setup.ts'],
    setupFiles: ['test/helpers/after-each-test.ts'],
    // ms. Tests spawn processes, servers and DuckDB files: room on a shared 2-core machine.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Child processes: test/unit/repo/docs-commands.test.ts changes the working directory, which a
    // worker thread may not.
    pool: 'forks',
    // Both tiers in one group of 4 workers: the e2e files wait on child processes, simulator latency
    // and BullMQ locks much of the time, and the unit tier's CPU-bound files fill those waits
    // (docs/decisions/0018-two-test-tiers.md has the figure).
    maxWorkers: 4,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          // One module cache for the tier's files in each worker: the code, DuckDB's binding, zod,
          // BullMQ... are imported once a worker, not once a file (about a quarter of the tier's CPU).
          // Hooks a file needs are registered by the setup file, not a helper's top level
          // (test/helpers/cleanup.ts says why).
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          // The same shared module cache: the e2e files import the simulator, DuckDB, BullMQ... too.
          // What a test starts (children, servers, Redis clients) it undoes through the setup file's
          // cleanups or its own afterEach.
          isolate: false,
        },
      },
    ],
  },
});
