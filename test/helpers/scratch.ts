/**
 * Where the tests' temporary files live: /dev/shm when it is a writable folder (a tmpfs: DuckDB's
 * files there are real files, but a checkpoint's fsync costs nothing), else the system's temporary
 * folder; TSYNC_TEST_TMPDIR names another. The global setup makes one folder per run under it and
 * removes it at the end (tmp.ts hands out folders inside it). The bench keeps the system's
 * temporary folder for its files: on a tmpfs nothing reaches a block device, and bytes written are
 * one of its figures.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { tmpdir } from 'node:os';

export function scratchBase(): string {
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
