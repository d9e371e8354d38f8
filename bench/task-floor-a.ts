/**
 * Child task, floor A (DuckDB's own ingest): a fresh file with the project's tables (the shipped
 * migrations), then the NDJSON records loaded by DuckDB alone (bench/floor-a-sql.ts) in one
 * transaction, committed and checkpointed; the sync's time includes the same checkpoint, taken when
 * it closes the file. DuckDB runs with its defaults here (no writer memory limit): this is the
 * floor, the fastest DuckDB can do it.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { STORAGE_FORMAT } from '../src/load/file/open-instance.js';
import { migrate } from '../src/load/migrate.js';
import { floorAStatements } from './floor-a-sql.js';

export interface FloorAOptions {
  readonly ndjson: string;
  readonly db: string;
}

export interface FloorAResult {
  readonly wallMs: number;
  /** ms per statement, then COMMIT and CHECKPOINT. */
  readonly steps: Readonly<Record<string, number>>;
  readonly rows: Readonly<Record<string, number>>;
}

const TABLES = ['jobs', 'utterances', 'words', 'module_results'] as const;

export async function runFloorA(options: FloorAOptions): Promise<FloorAResult> {
  const instance = await DuckDBInstance.create(options.db, {
    autoinstall_known_extensions: 'false',
    autoload_known_extensions: 'false',
    // The sync's own file format (src/load/file/open-instance.ts), so the floor stores the same bytes.
    storage_compatibility_version: STORAGE_FORMAT,
  });
  const connection = await instance.connect();
  try {
    await migrate(connection, options.db);
    const steps: Record<string, number> = {};
    const started = performance.now();
    let last = started;
    const lap = (name: string) => {
      const now = performance.now();
      steps[name] = now - last;
      last = now;
    };
    await connection.run('BEGIN TRANSACTION');
    for (const [i, sql] of floorAStatements(options.ndjson).entries()) {
      await connection.run(sql);
      lap(`statement ${i + 1}: ${sql.slice(0, 40)}`);
    }
    await connection.run('COMMIT');
    lap('commit');
    await connection.run('CHECKPOINT');
    lap('checkpoint');
    const wallMs = performance.now() - started;
    const rows: Record<string, number> = {};
    for (const table of TABLES) {
      const reader = await connection.runAndReadAll(`SELECT count(*)::INTEGER FROM ${table}`);
      rows[table] = Number(reader.getRowsJS()[0]?.[0] ?? 0);
    }
    return { wallMs, steps, rows };
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}
