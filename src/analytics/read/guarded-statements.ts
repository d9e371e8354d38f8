/**
 * The one gate every reader's SQL passes, on a file opened read-only or on the writer's instance
 * (./read-server.ts): the text is split into statements, each prepared, and only reading statement
 * types run (SELECT in all its spellings, CALL of a table function, EXPLAIN). File access is refused
 * by the instance's sandbox, writes by the statement type (and on the writer by its READ ONLY
 * transaction). Refusals are ConfigErrors (exit 2) that say why and what to do instead.
 */
import type { DuckDBConnection, DuckDBResultReader } from '@duckdb/node-api';
import { ConfigError, DatabaseError, isOutOfMemory } from '../../errors.js';
import { damagedFileError, duckdb, type SqlParams, toDuckParams } from '../../store/index.js';
import { sqlPathLiteral } from '../../util/sql-literal.js';

let kinds: ReturnType<typeof statementKinds> | undefined;

const statementTypes = () => (kinds ??= statementKinds());

/**
 * Statement types by what the gate does with them, made at first use (as DuckDB loads). CALL runs a
 * table function as `SELECT * FROM f()` does, and meets the read-only file or transaction as that
 * SELECT would; a checkpoint, which neither stops, is refused by its name (runsCheckpoint).
 * `words`: the statements DuckDB files under a type whose name is not theirs.
 */
function statementKinds() {
  const { StatementType } = duckdb();
  return {
    StatementType,
    reading: new Set<number>([StatementType.SELECT, StatementType.EXPLAIN, StatementType.CALL]),
    setting: new Set<number>([StatementType.SET, StatementType.VARIABLE_SET]),
    files: new Set<number>([
      StatementType.COPY,
      StatementType.EXPORT,
      StatementType.ATTACH,
      StatementType.DETACH,
      StatementType.LOAD,
      StatementType.EXTENSION,
    ]),
    words: {
      [StatementType.LOAD]: 'INSTALL or LOAD',
      [StatementType.EXTENSION]: 'extension',
      [StatementType.VARIABLE_SET]: 'SET VARIABLE',
      [StatementType.CREATE_FUNC]: 'CREATE MACRO or FUNCTION',
      [StatementType.COPY_DATABASE]: 'COPY FROM DATABASE',
      [StatementType.TRANSACTION]: 'transaction (BEGIN, COMMIT or ROLLBACK)',
    } as Partial<Record<number, string>>,
  };
}

/**
 * Instance-wide and irreversible: no file access except below `readableDirs` (and DuckDB's own
 * files), no getenv. `lockSettings` also locks the configuration (the writer needs it open).
 */
export async function sandboxInstance(
  connection: DuckDBConnection,
  options: { readonly readableDirs: readonly string[]; readonly lockSettings: boolean },
): Promise<void> {
  if (options.readableDirs.length > 0) {
    // SET takes no bound parameters; each folder goes through the one path-literal helper.
    const list = options.readableDirs.map((dir) => sqlPathLiteral(dir, '--read')).join(', ');
    await connection.run(`SET allowed_directories = [${list}]`);
  }
  await connection.run('SET enable_external_access = false');
  if (options.lockSettings) await connection.run('SET lock_configuration = true');
}

export interface GuardOptions {
  readonly params?: SqlParams;
  /** Refuse a statement whose result has more rows (it is streamed, never held whole). */
  readonly maxRows?: number;
  /** Refuse a text of more than one statement (a result that must be one table), naming the reason. */
  readonly single?: string;
  /** Each statement's result as soon as it is complete; `explain` marks an EXPLAIN's. */
  readonly each?: (reader: DuckDBResultReader, explain: boolean) => Promise<void> | void;
}

/**
 * Runs each statement of `sql` that only reads; `params` bind to a single statement, `where` names
 * the database in errors. The first refusal or failure stops the text; `each` had the results before.
 */
export async function runGuarded(
  connection: DuckDBConnection,
  sql: string,
  where: string,
  options: GuardOptions = {},
): Promise<DuckDBResultReader[]> {
  const { params, maxRows, single, each } = options;
  if (sql.trim() === '')
    throw new ConfigError(
      'query',
      'the SQL is empty; pass a statement, e.g. "SELECT * FROM billing_monthly"',
    );
  if (runsCheckpoint(sql)) throw readOnlyRefusal('a CHECKPOINT');
  const readers: DuckDBResultReader[] = [];
  try {
    const extracted = await connection.extractStatements(sql).catch((error: unknown) => {
      // DuckDB's extraction fails without a message on a text of comments alone.
      if (error instanceof Error && error.message === 'Error in native callback')
        throw new ConfigError(
          'query',
          'the SQL holds no statement, only comments; pass a statement after them',
        );
      throw error;
    });
    if (params !== undefined && extracted.count !== 1)
      throw new Error('parameters bind to exactly one statement');
    if (single !== undefined && extracted.count !== 1)
      throw new ConfigError('query', `the SQL holds ${extracted.count} statements; ${single}`);
    for (let i = 0; i < extracted.count; i += 1) {
      const prepared = await extracted.prepare(i);
      try {
        assertReading(prepared.statementType);
        const bound = toDuckParams(params);
        if (bound !== undefined) prepared.bind(bound);
        const reader =
          maxRows === undefined
            ? await prepared.runAndReadAll()
            : await prepared.streamAndReadUntil(maxRows + 1);
        if (maxRows !== undefined && (reader.currentRowCount > maxRows || !reader.done)) {
          const hint = 'add a LIMIT or aggregate, run it again after the sync, or read the --publish dataset';
          const why = `the result has more than ${maxRows} rows, more than a sync serves`;
          throw new ConfigError('query', why, { hint });
        }
        readers.push(reader);
        await each?.(reader, prepared.statementType === statementTypes().StatementType.EXPLAIN);
      } finally {
        prepared.destroySync();
      }
    }
  } catch (error) {
    throw error instanceof ConfigError ? error : queryError(where, error);
  }
  return readers;
}

function assertReading(type: number): void {
  const { reading, setting, files } = statementTypes();
  if (reading.has(type)) return;
  const kind = statementKind(type);
  if (setting.has(type)) throw settingsRefusal(kind);
  if (files.has(type)) throw filesRefusal(kind, FILES_HINT);
  throw readOnlyRefusal(kind);
}

const readOnlyRefusal = (why: string, cause?: unknown) =>
  new ConfigError(
    'query',
    `refused: the statement would change the database, and query is read-only (${why})`,
    { hint: READ_ONLY_HINT, cause },
  );
const filesRefusal = (why: string, hint: string, cause?: unknown) =>
  new ConfigError('query', `refused: the statement reads or writes files (${why})`, { hint, cause });
const settingsRefusal = (why: string, cause?: unknown) =>
  new ConfigError('query', `refused: settings cannot be changed by query (${why})`, { cause });

/**
 * Whether the text runs a checkpoint, strings and comments aside: CHECKPOINT, which DuckDB makes a
 * CALL of checkpoint(), or checkpoint() in a query, which a READ ONLY transaction does not stop on
 * the writer's instance.
 */
function runsCheckpoint(sql: string): boolean {
  const code = sql.replace(/'(?:[^']|'')*'|"(?:[^"]|"")*"|--[^\n]*|\/\*[\s\S]*?\*\//g, ' ');
  return /(?:^|;)\s*(?:force\s+)?checkpoint\b|\b(?:force_)?checkpoint\s*\(/i.test(code);
}

/** A statement type in words, with its article: `an INSERT statement`, `a DELETE statement`. */
function statementKind(type: number): string {
  const { StatementType, words: named } = statementTypes();
  const words = named[type] ?? String(StatementType[type]).replaceAll('_', ' ');
  return `${/^[AEIOU]/i.test(words) ? 'an' : 'a'} ${words} statement`;
}

/** Why a Parquet result takes one statement, for runGuarded's `single`. */
export const PARQUET_SINGLE =
  'a Parquet file holds one result: give one statement, or write several to .json or .csv';

const READ_ONLY_HINT =
  'only reading statements run here (SELECT, WITH, DESCRIBE, SHOW, SUMMARIZE, EXPLAIN); data changes only through sync';

const FILES_HINT =
  'query reads the database, and files only under the --read folders (during a sync: its --publish folder); `transcript-sync export --out DIR` writes Parquet';

/** Why DuckDB refused, in terms of what `query` allows. */
function queryError(where: string, error: unknown): Error {
  const message =
    (error instanceof Error ? error.message : String(error))
      .replace(/^Failed to extract statements: /, '')
      .split('\n')[0] ?? '';
  if (/read-only mode|Cannot execute statement of type|Cannot write to database/i.test(message))
    return readOnlyRefusal(message, error);
  if (/disabled (by|through) configuration|external access/i.test(message))
    return filesRefusal(message, FILES_HINT, error);
  if (/configuration has been locked/i.test(message)) return settingsRefusal(message, error);
  if (/^(Parser|Binder|Catalog|Conversion|Invalid Input) Error/i.test(message)) {
    return new ConfigError('query', message, {
      hint: 'check the SQL; `SHOW TABLES` lists the tables and views (see docs/schema.md)',
      cause: error,
    });
  }
  if (isOutOfMemory(error)) {
    return new DatabaseError(`the query ran out of memory on ${where}: ${message}`, {
      path: where,
      hint: 'give it more with --memory (TSYNC_MEMORY), e.g. --memory 1GB; a query that parses every raw with JSON functions needs about 768MB (docs/schema.md)',
      cause: error,
    });
  }
  return (
    damagedFileError(where, error) ??
    new DatabaseError(`the query failed on ${where}: ${message}`, { path: where, cause: error })
  );
}
