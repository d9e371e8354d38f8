/**
 * Child tasks, floor A (DuckDB's own ingest): a fresh file with the project's tables (the shipped
 * migrations), then the NDJSON records loaded by DuckDB alone (bench/floor-a-sql.ts), committed and
 * checkpointed; the sync's time includes the same checkpoint, taken when it closes the file.
 *
 * - `floor-a`: DuckDB's defaults (both threads, no memory limit) and one transaction: the fastest
 *   DuckDB loads these records, whatever memory that takes (GiBs on the larger shapes).
 * - `floor-a-bounded`: DuckDB at its best within the budget, with the shape's `floorBounds`
 *   (bench/datasets.ts, docs/decisions/0008-duckdb-parses-the-pages-javascript-keeps-the-walk.md):
 *   a transaction for each file of `batchJobs` records (cut by the bench beforehand,
 *   bench/ndjson-batches.ts, so the measured process never holds the records), each statement
 *   reading the file for its own fields (floorABoundedStatements: no temporary table to hold or
 *   spill), DuckDB's `memory_limit` and threads as given, the program's allocator settings
 *   (bench/child.ts, bench/child-output.ts) and the program's checkpoint policy (every commit
 *   written into the file, not the WAL; no merging of row groups: `CHECKPOINT_AT_COMMIT`,
 *   docs/decisions/0009-a-commit-written-into-the-file-once.md). Committed rows waiting in the WAL
 *   for a later checkpoint stay in DuckDB's memory, which no transaction size then held.
 *
 * Both check, off the clock, that a share of the first transaction's records were each stored
 * beside their own text (the two scans of a file are joined by position).
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { STORAGE_FORMAT } from '../src/store/file/open-instance.js';
import { migrate } from '../src/store/migrate.js';
import {
  FLOOR_A_TEMP_TABLES,
  type FloorABounds,
  floorABoundedStatements,
  floorAStatements,
} from './floor-a-sql.js';

export interface FloorAOptions {
  readonly ndjson: string;
  readonly db: string;
}

/** floor-a-bounded's: its DuckDB settings and the records cut into files of `bounds.batchJobs` lines. */
export interface FloorABoundedOptions {
  readonly db: string;
  readonly bounds: FloorABounds;
  readonly batches: readonly string[];
}

export interface FloorAResult {
  readonly wallMs: number;
  /** ms per statement (summed over the transactions), then COMMIT and CHECKPOINT. */
  readonly steps: Readonly<Record<string, number>>;
  readonly rows: Readonly<Record<string, number>>;
  /** Transactions the records were loaded in. */
  readonly transactions: number;
}

const TABLES = ['jobs', 'utterances', 'words', 'module_results'] as const;

/**
 * Of one in 64 of the first transaction's records, those whose text is not their typed id's: the
 * two scans of a file are joined by position. Read from the temporary table while it is small; reading the stored texts
 * back would raise the peak the bounded floor is measured by.
 */
const MISJOINED =
  "SELECT count(*)::INTEGER FROM src WHERE hash(r.id) % 64 = 0 AND json_extract_string(raw, '$.id') IS DISTINCT FROM r.id";

/**
 * Of one in 64 of the first transaction's records, those stored beside another's text or hash:
 * read from the transaction's own rows, before its commit.
 */
const MISSTORED =
  'SELECT count(*)::INTEGER FROM job_records AS r JOIN jobs AS j ON j.id = r.job_id WHERE hash(r.job_id) % 64 = 0 ' +
  "AND (json_extract_string(r.raw, '$.id') IS DISTINCT FROM r.job_id OR j.content_hash IS DISTINCT FROM sha1(r.raw))";

/** How a floor loads a file: its statements, the temporary tables they leave, its check. */
interface Plan {
  readonly statements: (file: string) => string[];
  readonly tempTables: readonly string[];
  /** The check's query, and after which statement of the first transaction (0-based) it runs. */
  readonly check: { readonly sql: string; readonly after: number };
}

const UNBOUNDED: Plan = {
  statements: floorAStatements,
  tempTables: FLOOR_A_TEMP_TABLES,
  check: { sql: MISJOINED, after: 0 },
};

const BOUNDED: Plan = {
  statements: floorABoundedStatements,
  tempTables: [],
  check: { sql: MISSTORED, after: floorABoundedStatements('').length - 1 },
};

/**
 * The program's checkpoint policy (src/store/file/open-instance.ts writerSettings), each
 * transaction taken as one that stored a batch: its commit checkpoints (`wal_autocheckpoint` 0)
 * straight into the file (`auto_checkpoint_skip_wal_threshold` 0), no row groups merged.
 */
const CHECKPOINT_AT_COMMIT = {
  wal_autocheckpoint: '0MiB',
  auto_checkpoint_skip_wal_threshold: '0',
  max_vacuum_tasks: '0',
} as const;

export function runFloorA(options: FloorAOptions): Promise<FloorAResult> {
  return ingest(options.db, [options.ndjson], {}, UNBOUNDED);
}

export function runFloorABounded({ db, bounds, batches }: FloorABoundedOptions): Promise<FloorAResult> {
  const settings = {
    memory_limit: `${bounds.memoryLimitMb}MB`,
    threads: String(bounds.threads),
    ...CHECKPOINT_AT_COMMIT,
  };
  return ingest(db, batches, settings, BOUNDED);
}

/** Each NDJSON file in a transaction of its own, then one CHECKPOINT; timed from the first. */
async function ingest(
  db: string,
  files: readonly string[],
  settings: Record<string, string>,
  plan: Plan,
): Promise<FloorAResult> {
  const instance = await DuckDBInstance.create(db, {
    autoinstall_known_extensions: 'false',
    autoload_known_extensions: 'false',
    // The sync's own file format (src/store/file/open-instance.ts), so the floor stores the same bytes.
    storage_compatibility_version: STORAGE_FORMAT,
    ...settings,
  });
  const connection = await instance.connect();
  try {
    await migrate(connection, db, { walThreshold: settings['wal_autocheckpoint'] ?? '16MiB' });
    const steps: Record<string, number> = {};
    const started = performance.now();
    let last = started;
    const lap = (name: string) => {
      const now = performance.now();
      steps[name] = (steps[name] ?? 0) + (now - last);
      last = now;
    };
    /** Runs `sql`; a failure names the step and the transaction it failed in. */
    const step = async (sql: string, name: string, transaction: number) => {
      try {
        await connection.run(sql);
      } catch (error) {
        const at = `${name}, transaction ${transaction + 1} of ${files.length}`;
        throw new Error(`floor A: ${at}: ${error instanceof Error ? error.message : String(error)}`);
      }
      lap(name);
    };
    /** Time the check took, ms: not the floor's. */
    let checkMs = 0;
    for (const [t, file] of files.entries()) {
      await connection.run('BEGIN TRANSACTION');
      for (const [i, sql] of plan.statements(file).entries()) {
        await step(sql, `statement ${i + 1}: ${sql.slice(0, 40)}`, t);
        if (t === 0 && i === plan.check.after) {
          const checking = performance.now();
          const wrong = Number((await connection.runAndReadAll(plan.check.sql)).getRowsJS()[0]?.[0] ?? 0);
          if (wrong > 0) throw new Error(`floor A: ${wrong} records read beside another record's text`);
          last = performance.now();
          checkMs += last - checking;
        }
      }
      for (const table of plan.tempTables) await step(`DROP TABLE ${table}`, 'commit', t);
      await step('COMMIT', 'commit', t);
    }
    await step('CHECKPOINT', 'checkpoint', files.length - 1);
    const wallMs = performance.now() - started - checkMs;
    const rows: Record<string, number> = {};
    for (const table of TABLES) {
      const reader = await connection.runAndReadAll(`SELECT count(*)::INTEGER FROM ${table}`);
      rows[table] = Number(reader.getRowsJS()[0]?.[0] ?? 0);
    }
    return { wallMs, steps, rows, transactions: files.length };
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}
