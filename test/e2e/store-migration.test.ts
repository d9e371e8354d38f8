/**
 * Migrations 002, 005 and 006 upgrade a file written by the release before them (`jobs` and `sync_runs`
 * with a key, each record's `raw` in `jobs`) in place: nothing lost, idempotent, and a SIGKILL
 * mid-way leaves each migration undone or done, never half. The old file is built by the real
 * runner (only the migrations that release shipped) and filled with what the real loader wrote.
 */
import { spawn } from 'node:child_process';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { openWriter } from '../../src/store/open-file.js';
import { projectRoot } from '../../src/util/paths.js';
import { fingerprint } from '../helpers/db-fingerprint.js';
import {
  ADDED_COLUMNS,
  ALL_MIGRATIONS,
  LEGACY_MIGRATIONS,
  UPGRADE_MIGRATIONS,
  writeLegacyFile,
} from '../helpers/legacy-file.js';
import { loadRecords } from '../helpers/load.js';
import { fileTempDir, tempDir } from '../helpers/tmp.js';

interface Shape {
  /** Versions in schema_migrations. */
  versions: number[];
  /** Tables with a PRIMARY KEY. */
  keyed: string[];
}

async function shape(path: string): Promise<Shape> {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const instance = await DuckDBInstance.create(path, { access_mode: 'READ_ONLY' });
  const connection = await instance.connect();
  try {
    const versions = (await connection.runAndReadAll('SELECT version FROM schema_migrations ORDER BY 1'))
      .getRowsJS()
      .map((row) => Number(row[0]));
    const keyed = (
      await connection.runAndReadAll(
        "SELECT DISTINCT table_name FROM duckdb_constraints() WHERE constraint_type IN ('PRIMARY KEY', 'UNIQUE') ORDER BY 1",
      )
    )
      .getRowsJS()
      .map((row) => String(row[0]));
    return { versions, keyed };
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

const LEGACY_KEYED = ['checkpoints', 'jobs', 'quarantine', 'schema_migrations', 'sync_runs'];
const KEYED_NOW = ['checkpoints', 'quarantine', 'schema_migrations'];

describe('migrations 002, 005 and 006: no key on the history tables, records in a table of their own', () => {
  // One file of the previous release, written once and copied fresh for each test that opens it.
  const template = fileTempDir('tsync-legacy-');
  const legacy = join(template.dir, 'legacy.duckdb');
  let legacyPrint: Record<string, string>;
  beforeAll(async () => {
    await writeLegacyFile(legacy, { jobs: 40 });
    legacyPrint = await fingerprint(legacy, { omit: ADDED_COLUMNS });
  });
  afterAll(() => template.remove());
  const legacyCopy = (): string => {
    const path = join(tempDir(), 'legacy.duckdb');
    copyFileSync(legacy, path);
    return path;
  };

  it('upgrades a file of the previous release in place: every table holds the same rows, views still read', async () => {
    const path = legacyCopy();
    const before = legacyPrint;
    expect(await shape(path)).toEqual({ versions: [...LEGACY_MIGRATIONS], keyed: LEGACY_KEYED });
    for (const table of Object.keys(before)) expect(before[table], table).not.toMatch(/^0:/);

    let logged = '';
    const lines = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logged += chunk.toString();
        done();
      },
    });
    const db = await openWriter(path, { logger: createLogger('info', {}, { stream: lines }) });
    try {
      // The upgrade says what runs, and how far the copy of the records got.
      expect(logged).toContain('migration 006_records_apart runs once');
      expect(logged).toMatch(/copied (\d+) of \1 batches of records/);
      const facts = await db.all<{ n: number; deleted: number }>(
        'SELECT count(*)::INTEGER AS n, count(*) FILTER (WHERE is_deleted)::INTEGER AS deleted FROM job_facts',
      );
      expect(facts[0]).toEqual({ n: 40, deleted: 1 });
      const billed = await db.all<{ n: number }>('SELECT count(*)::INTEGER AS n FROM billing_daily');
      expect(billed[0]?.n).toBeGreaterThan(0);
      const search = await db.all<{ n: number }>("SELECT count(*)::INTEGER AS n FROM transcript_search('a')");
      expect(search[0]?.n).toBeGreaterThan(0);
    } finally {
      await db.close();
    }
    expect(await fingerprint(path, { omit: ADDED_COLUMNS })).toEqual(before);
    expect(await shape(path)).toEqual({ versions: [...ALL_MIGRATIONS], keyed: KEYED_NOW });
    const reader = await openWriter(path);
    try {
      const [records] = await reader.all<{ n: number; raw_columns: number }>(
        `SELECT (SELECT count(*) FROM job_records)::INTEGER AS n,
                (SELECT count(*) FROM duckdb_columns() WHERE table_name = 'jobs' AND column_name = 'raw')::INTEGER AS raw_columns`,
      );
      expect(records).toEqual({ n: 40, raw_columns: 0 });
    } finally {
      await reader.close();
    }
  });

  it('runs once: a second open applies nothing and changes nothing', async () => {
    const path = legacyCopy();
    await (await openWriter(path)).close();
    const migrated = await fingerprint(path, { omit: ADDED_COLUMNS });
    const db = await openWriter(path);
    const applied = await db.all<{ n: number }>('SELECT count(*)::INTEGER AS n FROM schema_migrations');
    await db.close();
    expect(applied[0]?.n).toBe(ALL_MIGRATIONS.length);
    expect(await fingerprint(path, { omit: ADDED_COLUMNS })).toEqual(migrated);
  });

  it('keeps jobs.id unique after the upgrade: a changed record still replaces its row', async () => {
    const path = legacyCopy();
    const db = await openWriter(path);
    try {
      const [row] = await db.all<{ raw: string }>(
        "SELECT raw FROM jobs JOIN job_records ON job_id = id WHERE deleted_at IS NULL AND id <> 'x' LIMIT 1",
      );
      const record = JSON.parse(String(row?.raw)) as Record<string, unknown>;
      const result = await loadRecords(db, [{ ...record, custom_metadata: { again: 1 } }], new Date());
      expect(result.updated).toBe(1);
      const dup = await db.all<{ n: number }>(
        'SELECT count(*)::INTEGER AS n FROM (SELECT id FROM jobs GROUP BY id HAVING count(*) > 1)',
      );
      expect(dup[0]?.n).toBe(0);
    } finally {
      await db.close();
    }
  });

  it('killed mid-way (SIGKILL), the file is as it was or migrated, never half; the next open finishes it', {
    timeout: 120_000,
  }, async () => {
    const dir = tempDir();
    const original = join(dir, 'legacy.duckdb');
    // Big enough that copying `jobs` takes a while: the kill lands inside the transaction.
    await writeLegacyFile(original, { jobs: 100, utterancesPerJob: 16 });
    const before = await fingerprint(original, { omit: ADDED_COLUMNS });
    const outcomes: string[] = [];
    for (const delayMs of [0, 50]) {
      const path = join(dir, `copy-${outcomes.length}.duckdb`);
      copyFileSync(original, path);
      await openAndKill(path, delayMs);
      const after = await shape(path);
      // Each migration untouched or complete, in order, nothing in between: the legacy shape, or
      // the first one, two or three upgrade migrations done (records copied into job_records before
      // 006 commits stay in jobs.raw until it does).
      const done = UPGRADE_MIGRATIONS.filter((v) => after.versions.includes(v));
      expect(done).toEqual(UPGRADE_MIGRATIONS.slice(0, done.length));
      if (done.length === UPGRADE_MIGRATIONS.length) {
        expect(after).toEqual({ versions: [...ALL_MIGRATIONS], keyed: KEYED_NOW });
        outcomes.push('migrated');
      } else if (done.length > 0) {
        expect(after).toEqual({
          versions: [...LEGACY_MIGRATIONS, ...done].sort((a, b) => a - b),
          keyed: KEYED_NOW,
        });
        outcomes.push(`${done.length} of ${UPGRADE_MIGRATIONS.length} done`);
      } else {
        expect(after).toEqual({ versions: [...LEGACY_MIGRATIONS], keyed: LEGACY_KEYED });
        outcomes.push('as it was');
      }
      expect(await fingerprint(path, { omit: ADDED_COLUMNS })).toEqual(before);
      await (await openWriter(path)).close();
      expect(await shape(path)).toEqual({ versions: [...ALL_MIGRATIONS], keyed: KEYED_NOW });
      expect(await fingerprint(path, { omit: ADDED_COLUMNS })).toEqual(before);
    }
    // At least one kill must have landed inside the migration, or this test proves nothing.
    expect(outcomes).toContain('as it was');
  });
});

/**
 * Opens `path` for writing in a child process (the built code, a logger on stderr) and SIGKILLs it
 * `delayMs` after it announced the upgrade on stderr.
 */
async function openAndKill(path: string, delayMs: number): Promise<void> {
  const dist = join(projectRoot(), 'dist', 'src');
  const script = `
    const { openWriter } = await import(${JSON.stringify(join(dist, 'store', 'open-file.js'))});
    const { createLogger } = await import(${JSON.stringify(join(dist, 'log.js'))});
    const db = await openWriter(${JSON.stringify(path)}, { logger: createLogger('info') });
    await db.close();
    process.stdout.write('done\\n');
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let announced = false;
  await new Promise<void>((resolve) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (!announced && stderr.includes('upgrading')) {
        announced = true;
        setTimeout(() => {
          child.kill('SIGKILL');
          resolve();
        }, delayMs);
      }
    });
    child.once('exit', () => resolve());
  });
  await exited;
  expect(stderr).toMatch(/upgrading .* migration 002_no_keys_on_history/);
}
