/**
 * Every project's global setup: makes the run's scratch folder (./scratch.ts), removed at the end
 * whatever a test left in it. Redis is the business of ./redis-setup.ts, set up only by the
 * projects whose files use it (vitest.config.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { scratchBase } from './scratch.js';

declare module 'vitest' {
  export interface ProvidedContext {
    scratchRoot: string;
  }
}

export default function setup(project: TestProject): () => void {
  const scratch = mkdtempSync(join(scratchBase(), 'tsync-test-run-'));
  project.provide('scratchRoot', scratch);
  return () => rmSync(scratch, { recursive: true, force: true });
}
