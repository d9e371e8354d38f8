/**
 * Temporary folders of the tests, inside the run's scratch folder (./scratch.ts, removed when the
 * run ends): one removed after the current test, or one a whole file keeps.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { inject } from 'vitest';

/** The run's scratch folder. */
export const SCRATCH = inject('scratchRoot');

const made: string[] = [];

/** Removes the directories made so far; after each test (test/helpers/after-each-test.ts). */
export function removeTempDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** A fresh directory under SCRATCH, removed after the current test. */
export function tempDir(prefix = 'tsync-'): string {
  const dir = mkdtempSync(join(SCRATCH, prefix));
  made.push(dir);
  return dir;
}

/** A folder for a whole test file under SCRATCH (tempDir's is removed after each test). */
export function fileTempDir(prefix: string): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(SCRATCH, prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
