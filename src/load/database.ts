/**
 * A DuckDB file of transcript-sync: opened (and migrated when writable), queried with bound values,
 * and written in explicit transactions. The loader's and the engine's SQL lives in sql/queries/*.sql,
 * fetched by its typed name (queries.ts) with `query()`.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  type DuckDBConnection,
  type DuckDBMaterializedResult,
  type DuckDBPreparedStatement,
  JSDuckDBValueConverter,
  StatementType,
} from '@duckdb/node-api';
import { DatabaseError } from '../errors.js';
import { type Logger, silentLogger } from '../log.js';
import type { DuckDbMemory } from '../memory/budget.js';
import { sqlDir } from '../util/paths.js';
import { damagedFileError } from './file/damaged-file.js';
import { compactIfFragmented } from './file/merge-row-groups.js';
import {
  acquireInstance,
  discardCreatedFile,
  releaseInstance,
  restrictFile,
  type SharedInstance,
} from './file/open-instance.js';
import { assertMigrated, migrate } from './migrate.js';
import { isQueryName, type QueryName } from './queries.js';
import { loadSql } from './sql-files.js';
import { plainRow, type SqlParams, toDuckParams } from './values.js';

export interface OpenOptions {
  readonly readOnly?: boolean;
  /** How long to wait for a file another process holds, in ms; default 5000. */
  readonly lockWaitMs?: number;
  readonly logger?: Logger;
  /** DuckDB's memory settings of a writable open (src/memory/budget.ts); the default budget's if unset. */
  readonly memory?: DuckDbMemory;
  /** Small row groups a history table may collect before the close merges them (src/load/file/merge-row-groups.ts). */
  readonly compactAfter?: number;
  /** Migration versions to apply (tests build files of an older release); default every shipped one. */
  readonly migrations?: readonly number[];
}

const DEFAULT_LOCK_WAIT_MS = 5_000;

/** Statements Database.execute prepares once and keeps: queries and DML. */
const KEPT_STATEMENTS: ReadonlySet<StatementType> = new Set([
  StatementType.SELECT,
  StatementType.INSERT,
  StatementType.UPDATE,
  StatementType.DELETE,
]);
/** Texts kept at most per connection: the named queries are ~70; a caller of ever new texts stops here. */
const MAX_KEPT_STATEMENTS = 128;
const queries = new Map<QueryName, string>();

/** The text of sql/queries/<name>.sql, read once per process. */
export function namedQuery(name: QueryName): string {
  const cached = queries.get(name);
  if (cached !== undefined) return cached;
  // The type keeps names to the list; this guards what a cast or plain JavaScript lets through.
  if (!isQueryName(name)) throw new Error(`bad query name "${name}"`);
  const text = readFileSync(join(sqlDir(), 'queries', `${name}.sql`), 'utf8');
  queries.set(name, text);
  return text;
}

/** What reads of rows need of a database: a Database, or a reader of one (src/analytics/read/reader.ts). */
export type RowSource = Pick<Database, 'path' | 'all' | 'query'>;

export class Database {
  private closed = false;
  /** Depth of `transaction()` calls: nested calls join the outer transaction. */
  private depth = 0;
  /** Statements with bound values, prepared once per text (execute()); undefined: not kept (prepared()). */
  private readonly statements = new Map<string, DuckDBPreparedStatement | undefined>();
  /** Prepared statements between bind and run: a concurrent caller of the same text prepares anew. */
  private readonly binding = new Set<DuckDBPreparedStatement>();

  private constructor(
    readonly path: string,
    readonly readOnly: boolean,
    readonly connection: DuckDBConnection,
    private readonly shared: SharedInstance,
    private readonly logger: Logger,
    private readonly compactAfter: number | undefined,
  ) {}

  static async open(path: string, options: OpenOptions = {}): Promise<Database> {
    const full = resolve(path);
    const readOnly = options.readOnly ?? false;
    const logger = options.logger ?? silentLogger;
    const shared = await acquireInstance(
      full,
      readOnly,
      options.lockWaitMs ?? DEFAULT_LOCK_WAIT_MS,
      options.memory,
    );
    let connection: DuckDBConnection | undefined;
    try {
      connection = await shared.instance.connect();
      if (readOnly) {
        await assertMigrated(connection, full);
      } else {
        const started = Date.now();
        const applied = await migrate(connection, full, {
          versions: options.migrations,
          // A rebuild of a big file takes a while, once: say so before it starts.
          onUpgrade: (m) => {
            const name = `${String(m.version).padStart(3, '0')}_${m.name}`;
            logger.info(
              { db: full, migration: name },
              'upgrading %s: migration %s runs once, in one transaction (a big file takes a while; interrupted, it runs again at the next open)',
              full,
              name,
            );
          },
        });
        if (applied.length > 0)
          logger.info(
            { db: full, migrations: applied, ms: Date.now() - started },
            'database schema migrated',
          );
        // The loader's staging tables (temp: this connection's) are made here, outside any transaction,
        // so that no rollback drops them and no batch pays a statement to make sure they exist.
        await connection.run(loadSql('stage-create'));
      }
      return new Database(full, readOnly, connection, shared, logger, options.compactAfter);
    } catch (error) {
      connection?.closeSync();
      releaseInstance(full, shared);
      // A file this open created and could not set up holds nothing worth keeping.
      if (shared.created && shared.refs === 0) discardCreatedFile(full);
      throw damagedOr(full, error);
    }
  }

  async run(sql: string, params?: SqlParams): Promise<void> {
    this.assertOpen();
    await this.execute(sql, params);
  }

  /** Rows as plain objects: timestamps as Date, JSON as text, bigint as number when it is safe. */
  async all<T = Record<string, unknown>>(sql: string, params?: SqlParams): Promise<T[]> {
    this.assertOpen();
    return rowObjects(await this.execute(sql, params)).map((row) => plainRow(row) as T);
  }

  /**
   * Runs `sql` in one trip to DuckDB's threads when it can. Every trip ends in a callback that waits
   * for the event loop, which is busy reading pages during a sync: the client's own path for bound
   * values (split the text, prepare, execute, then fetch each result chunk) took five such trips a
   * statement, and the writer waited on them more than on DuckDB (BENCHMARKS.md, "The writer's
   * trips"). So a statement with values is prepared once and kept (`statements`), and results are
   * read from the materialized chunks without another trip.
   */
  private async execute(sql: string, params: SqlParams | undefined): Promise<DuckDBMaterializedResult> {
    try {
      const values = toDuckParams(params);
      if (values === undefined) return await this.connection.run(sql);
      const statement = await this.prepared(sql);
      // Text of several statements, or a statement another caller is between bind and run with.
      if (statement === undefined || this.binding.has(statement))
        return await this.connection.run(sql, values);
      this.binding.add(statement);
      try {
        statement.bind(values);
        return await statement.run();
      } finally {
        this.binding.delete(statement);
      }
    } catch (error) {
      // A damaged block surfaces only when a statement reads it.
      throw damagedOr(this.path, error);
    }
  }

  /**
   * `sql` prepared on this connection, once; undefined when it holds several statements or is not a
   * query or DML: a kept `CREATE OR REPLACE TEMP TABLE ... AS` run again left the table bound to
   * another temp table's columns (DuckDB 1.5.6), so DDL is prepared anew each time.
   */
  private async prepared(sql: string): Promise<DuckDBPreparedStatement | undefined> {
    if (this.statements.has(sql)) return this.statements.get(sql);
    if (this.statements.size >= MAX_KEPT_STATEMENTS) return undefined;
    const extracted = await this.connection.extractStatements(sql);
    let statement = extracted.count === 1 ? await extracted.prepare(0) : undefined;
    if (statement !== undefined && !KEPT_STATEMENTS.has(statement.statementType)) {
      statement.destroySync();
      statement = undefined;
    }
    this.statements.set(sql, statement);
    return statement;
  }

  /** The text of sql/queries/<name>.sql, read once per process. */
  query(name: QueryName): string {
    return namedQuery(name);
  }

  /**
   * A new connection to this file's instance, with its own transactions (so its own snapshot):
   * the read server answers each reader on one. The caller closes it.
   */
  async connect(): Promise<DuckDBConnection> {
    this.assertOpen();
    return this.shared.instance.connect();
  }

  /** Runs `fn` between BEGIN and COMMIT; any throw rolls back and is rethrown. */
  async transaction<T>(fn: () => Promise<T>): Promise<T> {
    this.assertOpen();
    if (this.depth > 0) return this.nested(fn);
    await this.connection.run('BEGIN TRANSACTION');
    this.depth = 1;
    try {
      const result = await fn();
      await this.commit();
      return result;
    } catch (error) {
      await this.rollbackQuietly();
      throw error;
    } finally {
      this.depth = 0;
      restrictFile(`${this.path}.wal`);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    if (!this.readOnly) {
      // The checkpoint at close merges small row groups when enough have piled up (src/load/file/merge-row-groups.ts).
      await compactIfFragmented(this, this.compactAfter).catch((error: unknown) =>
        this.logger.debug({ err: error }, 'could not check whether row groups need merging'),
      );
    }
    if (!this.readOnly && this.shared.refs === 1) {
      // The last user's close checkpoints the WAL into the file. closeSync would do that on the event
      // loop (a worker's /metrics, /healthz and read socket stall for it); CHECKPOINT runs it on
      // DuckDB's threads first, leaving closeSync ~20% of it (bench/close-stall.ts, figures in
      // BENCHMARKS.md). Should it fail, closeSync checkpoints as before.
      await this.connection
        .run('CHECKPOINT')
        .catch((error: unknown) => this.logger.debug({ err: error }, 'checkpoint before close failed'));
    }
    this.closed = true;
    for (const statement of this.statements.values()) statement?.destroySync();
    this.statements.clear();
    this.connection.closeSync();
    releaseInstance(this.path, this.shared);
  }

  /** A failed COMMIT (disk full, WAL not writable) is a DatabaseError naming the file, not a crash. */
  private async commit(): Promise<void> {
    try {
      await this.connection.run('COMMIT');
    } catch (error) {
      const damaged = damagedFileError(this.path, error);
      if (damaged) throw damaged;
      const message = (error instanceof Error ? error.message : String(error)).split('\n')[0];
      throw new DatabaseError(`could not commit to ${this.path}: ${message}`, {
        path: this.path,
        hint: 'check free disk space and that the file and its directory are writable; nothing of this batch was kept',
        cause: error,
      });
    }
  }

  private async nested<T>(fn: () => Promise<T>): Promise<T> {
    this.depth += 1;
    try {
      return await fn();
    } finally {
      this.depth -= 1;
    }
  }

  private async rollbackQuietly(): Promise<void> {
    try {
      await this.connection.run('ROLLBACK');
    } catch (error) {
      // A failed COMMIT may already have ended the transaction; the first error is the one to report.
      this.logger.debug({ err: error }, 'rollback after a failed transaction did not run');
    }
  }

  private assertOpen(): void {
    if (this.closed) {
      throw new DatabaseError(`${this.path} is closed`, { path: this.path, hint: 'open it again' });
    }
  }
}

/** A materialized result's rows as objects, read from its chunks in place (no fetch per chunk). */
function rowObjects(result: DuckDBMaterializedResult): Record<string, unknown>[] {
  const names = result.deduplicatedColumnNames();
  const rows: Record<string, unknown>[] = [];
  for (let c = 0; c < result.chunkCount; c++) {
    const chunk = result.getChunk(c);
    for (let r = 0; r < chunk.rowCount; r++) {
      const row: Record<string, unknown> = {};
      chunk.visitRowValues(r, (value, _row, column, type) => {
        row[names[column] as string] = JSDuckDBValueConverter(value, type, JSDuckDBValueConverter);
      });
      rows.push(row);
    }
  }
  return rows;
}

/** A file DuckDB opened but cannot read through (truncated, a block's checksum wrong) is damaged: say so, with the fix. */
function damagedOr(path: string, error: unknown): unknown {
  return damagedFileError(path, error) ?? error;
}
