/**
 * Temporary folders of the tests: one removed after the current test, or one a whole file keeps.
 * They live under SCRATCH: /dev/shm when it is a writable folder (a tmpfs: DuckDB's files there are
 * real files, but a checkpoint's fsync costs nothing), else the system's temporary folder.
 * TSYNC_TEST_TMPDIR names another. The bench keeps the system's folder for its files: on a tmpfs
 * nothing reaches a block device, and bytes written are one of its figures.
 */
import { accessSync, constants, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function scratchRoot(): string {
  const chosen = process.env['TSYNC_TEST_TMPDIR'];
  if (chosen) return chosen;
  try {
    if (!statSync('/dev/shm').isDirectory()) return tmpdir();
    accessSync('/dev/shm', constants.W_OK);
    return '/dev/shm';
  } catch {
    return tmpdir();
  }
}

/** Where the tests' temporary folders are made. */
export const SCRATCH = scratchRoot();

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
