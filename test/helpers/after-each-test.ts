/**
 * A setup file (vitest.config.ts): runs in every test file, so its hook is registered in each even
 * when files share a module cache. After each test: the registered cleanups (workers, Redis
 * clients), then the temporary folders, which those may still have held open.
 */
import { afterEach } from 'vitest';
import { runCleanups } from './cleanup.js';
import { removeTempDirs } from './tmp.js';

afterEach(async () => {
  await runCleanups();
  removeTempDirs();
});
