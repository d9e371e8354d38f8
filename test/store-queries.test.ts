/**
 * The query registry (src/load/queries.ts) and sql/queries/ must agree: a file missing from the list
 * cannot be asked for, and a listed name without its file would fail only when that code path runs.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { namedQuery } from '../src/load/database.js';
import { QUERIES } from '../src/load/statements/queries.js';

const FOLDER = join(import.meta.dirname, '..', 'sql', 'queries');

describe('the query registry', () => {
  it('lists every file of sql/queries, and only those', () => {
    const files = readdirSync(FOLDER)
      .filter((name) => name.endsWith('.sql'))
      .map((name) => name.slice(0, -'.sql'.length))
      .sort();
    expect([...QUERIES].sort()).toEqual(files);
  });

  it('reads the text of every listed query', () => {
    for (const name of QUERIES) expect(namedQuery(name).trim(), name).not.toBe('');
  });
});
