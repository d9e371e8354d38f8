/**
 * What the bad-input tests share: a synced database copied fresh for each test, the check that a
 * copy's data was left untouched, and the check that a failure is one line on stderr naming the fix
 * (as text, or as the one JSON log line of a command that logs), with the expected exit code.
 */
import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import { type CliResult, shownLines } from './cli.js';
import { fingerprint } from './db-fingerprint.js';
import { syncOnce } from './sync.js';
import { fileTempDir, tempDir } from './tmp.js';

/** A service nobody listens on: a run that got past the checks would fail differently. */
export const NO_SERVICE = { TSYNC_API_KEY: 'k', TSYNC_BASE_URL: 'http://127.0.0.1:9' };

export interface SyncedTemplate {
  /** A fresh copy of the template, byte for byte, removed after the test. */
  readonly copy: () => string;
  /**
   * Asserts that a copy holds the template's data: the same bytes and no WAL beside it (nothing
   * was written: no DuckDB open needed), else the same fingerprint as the template (DuckDB may
   * rewrite a header without changing any data).
   */
  readonly expectUntouched: (db: string) => Promise<void>;
}

/** Syncs a small template database once for the file, to be copied fresh for each test. */
export function syncedTemplate(): SyncedTemplate {
  const template = fileTempDir('tsync-bad-input-');
  const templateDb = join(template.dir, 'template.duckdb');
  let templateBytes: Buffer | undefined;
  /** The template's fingerprint, taken once, when a copy's bytes first differ from it. */
  let templatePrint: Promise<Record<string, string>> | undefined;
  beforeAll(async () => {
    const sim = await startSimulator({
      preRecorded: 15,
      live: 10,
      seed: 81,
      utterancesPerJob: 3,
      wordsPerUtterance: 3,
    });
    try {
      await syncOnce(sim, templateDb);
    } finally {
      await sim.close();
    }
    templateBytes = readFileSync(templateDb);
  });
  afterAll(() => template.remove());
  return {
    copy: () => {
      const db = join(tempDir('tsync-bad-'), 'data.duckdb');
      copyFileSync(templateDb, db);
      return db;
    },
    expectUntouched: async (db) => {
      if (!templateBytes) throw new Error('the template is synced in beforeAll; ask for it in a test');
      if (!existsSync(`${db}.wal`) && templateBytes.equals(readFileSync(db))) return;
      templatePrint ??= fingerprint(templateDb);
      expect(await fingerprint(db)).toEqual(await templatePrint);
    },
  };
}

export function expectOneLine(result: CliResult, code: 1 | 2, ...mentions: string[]): void {
  const shown = `exit ${result.code}\n${result.stderr}`;
  expect(result.code, shown).toBe(code);
  const lines = shownLines(result.stderr);
  expect(lines, shown).toHaveLength(1);
  expect(lines[0], shown).toMatch(/^transcript-sync: /);
  expect(lines[0], shown).not.toMatch(/unexpected error|\n\s+at /);
  for (const text of mentions) expect(lines[0], shown).toContain(text);
}
