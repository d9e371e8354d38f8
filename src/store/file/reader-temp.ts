/**
 * A reading process spills to `<file>.tmp-<pid>` (src/memory/reader-memory.ts) and removes it when
 * it closes the file; one killed before that leaves it behind. The next reading removes the folders
 * of processes no longer alive.
 */
import { readdirSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { pidAlive } from './lock-file.js';

/** Removes the spill folders beside `path` of reading processes that are gone. */
export function removeStaleReaderTemps(path: string): void {
  const prefix = `${basename(path)}.tmp-`;
  let names: string[];
  try {
    names = readdirSync(dirname(path)).filter((name) => name.startsWith(prefix));
  } catch {
    return; // an unreadable folder: DuckDB says what is wrong with the file itself
  }
  for (const name of names) {
    const pid = Number(name.slice(prefix.length));
    if (!Number.isInteger(pid) || pid <= 0 || pidAlive(pid)) continue;
    rmSync(join(dirname(path), name), { recursive: true, force: true });
  }
}
