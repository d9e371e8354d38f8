/**
 * Where the project's own files are, whether the code runs from src/ (tests) or dist/src/ (the bin).
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

/** The folder holding package.json and sql/. */
export function projectRoot(): string {
  if (cached) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'sql'))) {
      cached = dir;
      return dir;
    }
    const parent = dirname(dir);
    if (parent === dir)
      throw new Error('cannot find the transcript-sync project root (package.json with sql/)');
    dir = parent;
  }
}

export function sqlDir(): string {
  return join(projectRoot(), 'sql');
}
