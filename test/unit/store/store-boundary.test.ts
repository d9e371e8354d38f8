/**
 * The store's boundary (src/store): callers, the loader among them, run its statements through the
 * typed functions of src/store/statements and reach DuckDB through Database's methods. Nothing
 * outside src/store looks a query up by name, reads the registry of query texts, or takes a
 * Database's connection; and the files of src/store import each other without a cycle.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../../src/util/paths.js';

const ROOT = projectRoot();
const STORE = join(ROOT, 'src', 'store');

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => join(dir, name));
}

/** The product's code outside the store, and the code that builds on it: the bench, the jobs, test helpers. */
function callers(): string[] {
  return ['src', 'bench', 'jobs', join('test', 'helpers')]
    .flatMap((dir) => tsFiles(join(ROOT, dir)))
    .filter((file) => !file.startsWith(`${STORE}/`));
}

/** What crosses the boundary: a query by name, the texts' registry, a Database's connection. */
const CROSSINGS: readonly { readonly what: string; readonly pattern: RegExp }[] = [
  { what: 'a query looked up by name', pattern: /\.query\(/ },
  { what: 'the registry of query texts', pattern: /store\/statements\/queries\.js'/ },
  // A class's own field of that name (the read server's request) is not a Database's.
  { what: "a Database's connection", pattern: /(?<!\bthis)\.connection\b/ },
];

/** Relative imports (static, type-only, re-exports) of `file`, as absolute .ts paths. */
function imports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/\bfrom\s+'(\.[^']+)'/g)].map((m) =>
    resolve(dirname(file), m[1]!).replace(/\.js$/, '.ts'),
  );
}

describe('the store boundary', () => {
  it('no caller looks a query up by name or takes a connection', () => {
    const files = callers();
    expect(files.length).toBeGreaterThan(100);
    const found: string[] = [];
    for (const file of files) {
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          for (const { what, pattern } of CROSSINGS) {
            if (pattern.test(line)) found.push(`${relative(ROOT, file)}:${i + 1}: ${what}: ${line.trim()}`);
          }
        });
    }
    expect(found).toEqual([]);
  });

  it('the files of src/store import each other without a cycle', () => {
    const files = new Set(tsFiles(STORE));
    const edges = new Map([...files].map((file) => [file, imports(file).filter((to) => files.has(to))]));
    const cycles: string[] = [];
    const done = new Set<string>();
    const visit = (file: string, path: readonly string[]): void => {
      const at = path.indexOf(file);
      if (at >= 0) {
        cycles.push([...path.slice(at), file].map((f) => relative(STORE, f)).join(' -> '));
        return;
      }
      if (done.has(file)) return;
      for (const to of edges.get(file) ?? []) visit(to, [...path, file]);
      done.add(file);
    };
    for (const file of files) visit(file, []);
    expect(edges.size).toBeGreaterThan(10);
    expect(cycles).toEqual([]);
  });
});
