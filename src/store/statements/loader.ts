/**
 * The loader's statements (sql/load/). On the writer's connection, in its transaction, in this order:
 * classify, restore, replace, refresh the erased, finish. On a staging connection, each committing on
 * its own: the records parsed into rows.
 */
import type { DuckDBConnection, DuckDBListValue } from '@duckdb/node-api';
import type { Database } from '../database.js';
import { loadSql } from './load-sql.js';
import { countOf, only } from './queries.js';

/** A record of the batch against the stored jobs (classify.sql). */
export interface ClassifiedRecord {
  readonly id: string;
  readonly stored: boolean;
  /** Stored with the same content hash. */
  readonly same: boolean;
  /** Marked deleted or expired. */
  readonly was_deleted: boolean;
  /** Erased (jobs.erased_at): a changed record updates its billing facts only (refresh-erased.sql). */
  readonly erased: boolean;
}

/** Each staged key against the stored jobs of created_at `from` to `until` (classify.sql). */
export const classifyInWindow = (db: Database, params: { from: Date; until: Date }) =>
  db.all<ClassifiedRecord>(loadSql('classify'), params);

/** The stored jobs of `ids`, whatever their created_at (classify-anywhere.sql): stored, each. */
export const classifyAnywhere = (db: Database, params: { ids: readonly string[] }) =>
  db.all<Omit<ClassifiedRecord, 'stored'>>(loadSql('classify-anywhere'), only(params, 'ids'));

/** Lists again the staged jobs a --full run had marked deleted or expired, seen unchanged (restore.sql). */
export const restoreUnchanged = (db: Database) => db.run(loadSql('restore'));

/** Deletes the stored row, record and children of each staged job whose record changed (replace.sql). */
export const replaceChanged = (db: Database) => db.run(loadSql('replace'));

/** Updates the billing facts of erased jobs `ids` from their new records `raws`, pair by pair (refresh-erased.sql). */
export const refreshErased = (db: Database, params: { ids: DuckDBListValue; raws: DuckDBListValue }) =>
  db.run(loadSql('refresh-erased'), params);

/** Empties the batch's staged keys (finish.sql). */
export const finishBatch = (db: Database) => db.run(loadSql('finish'));

/** Jobs stored, as the writer's transaction sees them (stored-ids-count.sql). */
export const storedJobCount = (db: Database) => countOf(db.all(loadSql('stored-ids-count')), 'n');

/** Hands every stored job's id to `take`, a chunk at a time (stored-ids.sql). */
export const eachStoredId = (db: Database, take: (id: string) => void) =>
  db.eachValue(loadSql('stored-ids'), (id) => take(String(id)));

/** Makes the batch's keys table (_tsync_keys) on the writer's connection (stage-create.sql). */
export const createWriterStaging = (connection: DuckDBConnection) => connection.run(loadSql('stage-create'));

/** Makes the shapes records are parsed into, and the empty staging table, on `staging` (parse-create.sql). */
export async function createParseStaging(staging: DuckDBConnection): Promise<void> {
  await staging.run(loadSql('parse-create'));
  await resetParseStaging(staging);
}

/** Drops what a batch staged and makes _tsync_items anew (parse-reset.sql). */
export const resetParseStaging = (staging: DuckDBConnection) => staging.run(loadSql('parse-reset'));

/** Parses the staged records into typed rows, kept on `staging` (parse.sql); the child rows made. */
export async function parseStaged(staging: DuckDBConnection): Promise<{ utterances: number; words: number }> {
  const [counts] = (await staging.runAndReadAll(loadSql('parse'))).getRowObjectsJS();
  return { utterances: Number(counts?.['utterances'] ?? 0), words: Number(counts?.['words'] ?? 0) };
}

/** The tables a parse makes rows for, each with its rows-*.sql. */
const ROWS = {
  jobs: 'rows-jobs',
  job_records: 'rows-job-records',
  utterances: 'rows-utterances',
  words: 'rows-words',
  module_results: 'rows-module-results',
} as const;

export type ParsedTable = keyof typeof ROWS;

/** The parsed rows of `table` in its columns, in order, ready to append (rows-<table>.sql). */
export const parsedRows = (staging: DuckDBConnection, table: ParsedTable) =>
  staging.run(loadSql(ROWS[table]));
