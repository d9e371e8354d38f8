/**
 * The arrows of the layout (README, "Layout of the code"): src/ is the product and imports only
 * itself; jobs/ and bench/ build on src/; test/ may import anything. So the build (src, jobs and
 * bench: tsconfig.build.json) never pulls in test code or vitest, and the worker never reaches into
 * the CLI.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');

function* sources(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory() && entry.name !== 'out') yield* sources(path);
    else if (entry.isFile() && entry.name.endsWith('.ts')) yield path;
  }
}

/** Every module specifier a file names: static imports, re-exports and `import()` of a literal. */
function specifiers(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|^import\s+)['"]([^'"]+)['"]/gm)].map((m) => m[1]!);
}

interface Arrow {
  readonly from: string;
  readonly to: string;
}

/** Imports of the files under `folder`, relative ones as repository paths, packages as named. */
function arrowsFrom(folder: string): Arrow[] {
  const arrows: Arrow[] = [];
  for (const file of sources(join(ROOT, folder))) {
    for (const spec of specifiers(file)) {
      const to = spec.startsWith('.') ? relative(ROOT, resolve(dirname(file), spec)) : spec;
      arrows.push({ from: relative(ROOT, file), to: to.split(sep).join('/') });
    }
  }
  return arrows;
}

describe('the arrows of the layout', () => {
  it('src/ imports nothing from jobs/, bench/ or test/', () => {
    const arrows = arrowsFrom('src');
    expect(arrows.length).toBeGreaterThan(100);
    const outside = arrows.filter((a) => a.to.startsWith('.') || /^(jobs|bench|test)\//.test(a.to));
    expect(outside).toEqual([]);
  });

  it('normalizing is pure: src/normalize/ reaches only the record schemas and the scan, never the store or the engine', () => {
    const arrows = arrowsFrom('src/normalize').filter((a) => a.to.startsWith('src/'));
    expect(arrows.length).toBeGreaterThan(3);
    expect(arrows.filter((a) => !/^src\/(normalize|records|extract)\//.test(a.to))).toEqual([]);
  });

  it('the worker does not depend on the CLI', () => {
    expect(arrowsFrom('src/worker').filter((a) => a.to.startsWith('src/cli/'))).toEqual([]);
  });

  it('what the build compiles (src, jobs, bench) imports no test code and no vitest', () => {
    const build = JSON.parse(readFileSync(join(ROOT, 'tsconfig.build.json'), 'utf8')) as {
      include: string[];
    };
    expect([...build.include].sort()).toEqual(['bench', 'jobs', 'src']);
    const arrows = build.include.flatMap(arrowsFrom);
    const testCode = arrows.filter(
      (a) => a.to.startsWith('test/') || a.to === 'vitest' || a.to.startsWith('vitest/'),
    );
    expect(testCode).toEqual([]);
    expect(arrows.some((a) => a.to.startsWith('src/'))).toBe(true);
  });
});
