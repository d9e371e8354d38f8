import { defineConfig } from 'vitest/config';

/**
 * Two tiers, one folder each. test/e2e/: tests that start the built program (bin/ over dist/, so
 * they need `npm run build`), the worker process, SIGINT/SIGTERM/SIGKILL, another user's
 * permissions, or the benches. test/unit/: in-process (the CLI through runMain), no build step;
 * test/unit/repo/test-tiers.test.ts fails when a file there starts the build.
 */
export default defineConfig({
  test: {
    globalSetup: ['test/helpers/global-setup.ts'],
    setupFiles: ['test/helpers/after-each-test.ts'],
    // Tests spawn processes, servers and DuckDB files: give them room on a shared 2-core machine.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // More workers than cores for the e2e tier: its files spend much of their time waiting on child
    // processes, simulator latency and BullMQ locks (`npm test` on the shared 2-core machine: 155 s
    // with 2 workers, 137 s with 4, when both tiers shared the pool). The unit tier sets its own.
    maxWorkers: 4,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          // CPU-bound in-process files: 3 at a time on 2 cores did the tier's work in ~8% less CPU than 4
          // (less of each worker's import and transform, less contention), 28.2-28.9 against 30.2-30.4 s
          // (`npm run test:unit`, quiet machine, side by side); 2 took 28.3 s.
          maxWorkers: 3,
          // Projects with their own maxWorkers run as groups, one after the other (vitest requires a
          // groupOrder each): the e2e tier first, then this one. `npm test` 64.6-65.5 s against 66.8 s
          // with both tiers sharing 4 workers (fresh clone, quiet machine).
          sequence: { groupOrder: 1 },
          // One module cache for the tier's files in each worker: each file no longer re-imports the
          // code, DuckDB's binding, zod, BullMQ... (CPU of the tier 136 s -> 101 s, measured side by
          // side on the loaded 2-core machine). Hooks a file needs are registered by the setup file,
          // not a helper's top level (test/helpers/cleanup.ts says why).
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          sequence: { groupOrder: 0 },
          include: ['test/e2e/**/*.test.ts'],
          // The same shared module cache: the e2e files import the simulator, DuckDB, BullMQ... too
          // (vitest's import time of the tier 21.7 s -> 9.9 s, its CPU 127 s -> 114 s, `vitest run
          // --project e2e` on the loaded 2-core machine). What a test starts (children, servers,
          // Redis clients) it undoes through the setup file's cleanups or its own afterEach.
          isolate: false,
        },
      },
    ],
  },
});
