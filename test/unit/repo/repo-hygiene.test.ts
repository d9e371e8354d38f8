/**
 * A merge that left its conflict markers in a file once landed on main (README.md): nothing else in
 * the suite reads prose files, so this test does.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const SKIP = new Set(['node_modules', 'dist', '.git', 'data', 'reports', 'coverage']);
const TEXT = /\.(ts|js|json|md|sql|yml|yaml|sh|toml)$|^(Dockerfile|run|transcript-sync)$/;
const MARKER = /^(<{7} |={7}$|>{7} )/m;

function* files(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else if (entry.isFile() && TEXT.test(entry.name)) yield path;
  }
}

describe('the repository', () => {
  it('holds no merge conflict markers', () => {
    const marked = [...files(ROOT)]
      .filter((path) => MARKER.test(readFileSync(path, 'utf8')))
      .map((path) => relative(ROOT, path));
    expect(marked).toEqual([]);
  });
});
