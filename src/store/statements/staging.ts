/**
 * The loader's staging (sql/load/): the temp tables a writer makes once when it opens the file, and
 * the statements of the writer's staging connection, which run outside the writer's transaction,
 * each committing on its own (src/load/parse-batch.ts).
 */
import type { DuckDBConnection, DuckDBMaterializedResult } from '@duckdb/node-api';
import { loadSql } from './load-sql.js';

/** Makes the batch's keys table (_tsync_keys) on the writer's connection (stage-create.sql). */
export async function createWriterStaging(connection: DuckDBConnection): Promise<void> {
  await connection.run(loadSql('stage-create'));
}

/** Makes the shapes records are parsed into, and the empty staging table, on `staging` (parse-create.sql). */
export async function createParseStaging(staging: DuckDBConnection): Promise<void> {
  await staging.run(loadSql('parse-create'));
  await resetParseStaging(staging);
}

/** Drops what a batch staged and makes _tsync_items anew (parse-reset.sql). */
export async function resetParseStaging(staging: DuckDBConnection): Promise<void> {
  await staging.run(loadSql('parse-reset'));
}

/** Child rows a parse made. */
export interface ParsedCounts {
  readonly utterances: number;
  readonly words: number;
}

/** Parses the staged records into typed rows, kept on `staging` (parse.sql); the child rows made. */
export async function parseStaged(staging: DuckDBConnection): Promise<ParsedCounts> {
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
export function parsedRows(staging: DuckDBConnection, table: ParsedTable): Promise<DuckDBMaterializedResult> {
  return staging.run(loadSql(ROWS[table]));
}
