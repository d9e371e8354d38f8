/**
 * The query registry (src/load/statements/queries.ts) and sql/queries/ must agree: a file missing
 * from the list cannot be run, and a listed name without its file would fail only when that code
 * path runs.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { QUERIES, type QueryName, queryText } from '../src/load/statements/queries.js';

const FOLDER = join(import.meta.dirname, '..', 'sql', 'queries');

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
});
