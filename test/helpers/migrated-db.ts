/**
 * A database file that already holds the schema, for tests whose subject is not the file's creation
 * or its migrations (hostile listings, the in-process worker, the loader, quarantine, checkpoints,
 * merged pages, the files the analytics tests load): an empty file migrated once per test process,
 * copied into a fresh temporary folder (removed after the test) or to a path the caller names. A copy costs about half of what creating and migrating
 * a file does; the files that test creation and migrations (store-database, store-migration, sync's
 * fresh back-fill...) still start from nothing.
 */
import { copyFileSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { openWriter } from '../../src/store/open-file.js';
import { SCRATCH, tempDir } from './tmp.js';

let template: Promise<string> | undefined;

async function makeTemplate(): Promise<string> {
  // One per worker process (its files share one module cache), removed with the run's scratch.
  const dir = mkdtempSync(join(SCRATCH, 'tsync-template-'));
  const path = join(dir, 'template.duckdb');
  await (await openWriter(path)).close();
  return path;
}

/** Writes a migrated, empty copy at `path` (its folder must exist). */
export async function copyMigrated(path: string): Promise<void> {
  template ??= makeTemplate();
  copyFileSync(await template, path);
}

/** The path of a migrated, empty copy named `name` in a fresh temporary folder. */
export async function migratedDb(name: string): Promise<string> {
  const path = join(tempDir(), name);
  await copyMigrated(path);
  return path;
}
