/**
 * The query registry (src/store/statements/queries.ts) and sql/queries/ must agree: a file missing
 * from the list cannot be run, and a listed name without its file would fail only when that code
 * path runs. Each statement is run by one function of src/store/statements, and nothing else in the
 * code names it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LOAD_SQL, type LoadSqlName, loadSql } from '../../../src/store/statements/load-sql.js';
import { QUERIES, type QueryName, queryText } from '../../../src/store/statements/queries.js';
import { projectRoot } from '../../../src/util/paths.js';

const ROOT = projectRoot();
const FOLDER = join(ROOT, 'sql', 'queries');
const STATEMENTS = join(ROOT, 'src', 'store', 'statements');

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => join(dir, name));
}

/** Where each name of `names` is written as a string literal, by file. */
function mentions<Name extends string>(
  files: readonly string[],
  names: readonly Name[],
): Map<Name, string[]> {
  const found = new Map<Name, string[]>(names.map((name) => [name, []]));
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    for (const name of names) {
      const count = text.split(`'${name}'`).length - 1;
      for (let i = 0; i < count; i++) found.get(name)?.push(relative(ROOT, file));
    }
  }
  return found;
}

describe('the query registry', () => {
  it('lists every file of sql/queries, and only those', () => {
    const files = readdirSync(FOLDER)
      .filter((name) => name.endsWith('.sql'))
      .map((name) => name.slice(0, -'.sql'.length))
      .sort();
    expect([...QUERIES].sort()).toEqual(files);
  });

  it('reads the text of every listed query, and nothing outside the folder', () => {
    for (const name of QUERIES) expect(queryText(name).trim(), name).not.toBe('');
    expect(queryText('jobs-pending')).toMatch(/FROM jobs/);
    // A name outside the registry is a compile error; at run time it throws.
    expect(() => queryText('../001_tables' as QueryName)).toThrow(/bad query name/);
  });

  it('runs each statement through one function of src/store/statements, and names it nowhere else', () => {
    const registry = join(STATEMENTS, 'queries.ts');
    const functions = tsFiles(STATEMENTS).filter((file) => file !== registry);
    const once = [...mentions(functions, QUERIES)].filter(([, files]) => files.length !== 1);
    expect(once, 'each name once in src/store/statements').toEqual([]);
    const elsewhere = ['src', 'jobs', 'bench']
      .flatMap((dir) => tsFiles(join(ROOT, dir)))
      .filter((file) => !file.startsWith(`${STATEMENTS}/`));
    expect([...mentions(elsewhere, QUERIES)].filter(([, files]) => files.length > 0)).toEqual([]);
  });
});

describe('the registry of sql/load', () => {
  it('lists every file of sql/load, and only those', () => {
    const files = readdirSync(join(ROOT, 'sql', 'load'))
      .filter((name) => name.endsWith('.sql'))
      .map((name) => name.slice(0, -'.sql'.length))
      .sort();
    expect([...LOAD_SQL].sort()).toEqual(files);
    for (const name of LOAD_SQL) expect(loadSql(name).trim(), name).not.toBe('');
  });

  it('runs each file through one function of src/store/statements, and reads the registry nowhere else', () => {
    const registry = join(STATEMENTS, 'load-sql.ts');
    const functions = tsFiles(STATEMENTS).filter((file) => file !== registry);
    const once = [...mentions<LoadSqlName>(functions, LOAD_SQL)].filter(([, files]) => files.length !== 1);
    expect(once, 'each name once in src/store/statements').toEqual([]);
    const readers = ['src', 'jobs', 'bench']
      .flatMap((dir) => tsFiles(join(ROOT, dir)))
      .filter((file) => !file.startsWith(`${STATEMENTS}/`))
      .filter((file) => /\bloadSql\(|statements\/load-sql\.js'/.test(readFileSync(file, 'utf8')))
      .map((file) => relative(ROOT, file));
    expect(readers).toEqual([]);
  });
});
