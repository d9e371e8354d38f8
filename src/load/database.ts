/**
 * A DuckDB file's statements and transactions: SQL with bound values (the statements of
 * src/load/statements, the loader's), run on one connection, and explicit transactions. Opening and
 * closing the file (the instance, migrations, a writer's staging, merge and checkpoint) is
 * open-file.ts's, which hands a Database its connection and what closing means.
 */
import {
  type DuckDBAppender,
  type DuckDBConnection,
  type DuckDBMaterializedResult,
  type DuckDBPreparedStatement,
  StatementType,
} from '@duckdb/node-api';
import { DatabaseError } from '../errors.js';
import { type Logger, silentLogger } from '../log.js';
import { commitWithCheckpoint } from './file/commit-checkpoint.js';
import { damagedFileError } from './file/damaged-file.js';
import { restrictFile } from './file/open-instance.js';
import { plainRow, rowObjects, type SqlParams, toDuckParams } from './values.js';

/** Statements Database.execute prepares once and keeps: queries and DML. */
const KEPT_STATEMENTS: ReadonlySet<StatementType> = new Set([
  StatementType.SELECT,
  StatementType.INSERT,
  StatementType.UPDATE,
  StatementType.DELETE,
]);
/** Texts kept at most per connection: the named queries are ~70; a caller of ever new texts stops here. */
const MAX_KEPT_STATEMENTS = 128;

/**
 * What a reading statement (src/load/statements) needs of a database: rows of SQL text with bound
 * values, and the file's path for messages. A Database, or a Reader of one (src/analytics/read).
 */
export interface RowSource {
  readonly path: string;
  all<T = Record<string, unknown>>(sql: string, params?: SqlParams): Promise<T[]>;
}

/** What the opener (open-file.ts) hands a Database. */
export interface DatabaseParts {
  /** Absolute. */
  readonly path: string;
  readonly connection: DuckDBConnection;
  /** A new connection to the same file: its own transactions, so its own snapshot. */
  readonly connect: () => Promise<DuckDBConnection>;
  /** A writer's staging connection (the loader's parsing, outside its transactions); closed by close(). */
  readonly staging?: DuckDBConnection;
  /** A writer's WAL threshold as its DuckDB setting (file/open-instance.ts), for checkpointAtCommit. */
  readonly walThreshold?: string;
  /** Run once by close() while statements still run (a writer's merge and checkpoint); must not throw. */
  readonly beforeClose?: (db: Database) => Promise<void>;
  /** Run once by close() after the connection closed: gives the file back. */
  readonly release: () => void;
  /**
   * A writer's: gives the file back and opens it again with the same settings, no migration
   * (reopen()); undefined for a read-only open.
   */
  readonly reopen?: () => Promise<DatabaseParts>;
  /** Whether this Database is the instance's only handle in the process (reopen() needs that). */
  readonly sole?: () => boolean;
  readonly logger?: Logger;
}

/** Run on a new connection after each reopen(), before any other statement: instance settings. */
export type ReopenHook = (connection: DuckDBConnection) => Promise<void>;

export class Database {
  readonly path: string;
  private parts: DatabaseParts;
  private connection: DuckDBConnection;
  private readonly logger: Logger;
  private closed = false;
  /** Connections withConnection() has lent and not yet had back. */
  private lent = 0;
  /** Statements running on `connection` outside a transaction. */
  private running = 0;
  /** Whether `connection` holds state a later statement reads (pinConnection). */
  private pinned = false;
  /** Set while reopen() runs: withConnection() waits for it. */
  private reopening: Promise<void> | undefined;
  private readonly reopenHooks = new Set<ReopenHook>();
  /** Depth of `transaction()` calls: nested calls join the outer transaction. */
  private depth = 0;
  /** Whether the open transaction's COMMIT is to checkpoint instead of writing the WAL (checkpointAtCommit). */
  private checkpointCommit = false;
  /** Statements with bound values, prepared once per text (execute()); undefined: not kept (prepared()). */
  private readonly statements = new Map<string, DuckDBPreparedStatement | undefined>();
  /** Prepared statements between bind and run: a concurrent caller of the same text prepares anew. */
  private readonly binding = new Set<DuckDBPreparedStatement>();

  constructor(parts: DatabaseParts) {
    this.parts = parts;
    this.path = parts.path;
    this.connection = parts.connection;
    this.logger = parts.logger ?? silentLogger;
  }

  async run(sql: string, params?: SqlParams): Promise<void> {
    await this.ready();
    await this.execute(sql, params);
  }

  /** Rows as plain objects: timestamps as Date, JSON as text, bigint as number when it is safe. */
  async all<T = Record<string, unknown>>(sql: string, params?: SqlParams): Promise<T[]> {
    await this.ready();
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
    this.running += 1;
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
    } finally {
      this.running -= 1;
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

  /** Each value of the first column of `sql`'s rows, read a chunk at a time: for results too big to hold at once. */
  async eachValue(sql: string, take: (value: unknown) => void): Promise<void> {
    await this.ready();
    this.running += 1;
    try {
      const result = await this.connection.stream(sql);
      for (let chunk = await result.fetchChunk(); chunk?.rowCount; chunk = await result.fetchChunk())
        for (const value of chunk.getColumnValues(0)) take(value);
    } finally {
      this.running -= 1;
    }
  }

  /**
   * An appender into `table` (of `catalog`: the loader's staging table is in `temp`) on this
   * connection, so inside its open transaction. The caller closes it.
   */
  async createAppender(
    table: string,
    schema: string | null,
    catalog: string | null,
  ): Promise<DuckDBAppender> {
    this.assertOpen();
    return this.connection.createAppender(table, schema, catalog);
  }

  /** `sql` prepared on this connection, for a caller that binds and runs it many times; the caller destroys it. */
  async prepare(sql: string): Promise<DuckDBPreparedStatement> {
    this.assertOpen();
    return this.connection.prepare(sql);
  }

  /**
   * A writer's staging connection, opened with it: the loader parses records there, each statement
   * committing on its own, so that nothing it stages is held by this connection's transaction.
   */
  stagingConnection(): DuckDBConnection {
    this.assertOpen();
    if (this.parts.staging) return this.parts.staging;
    throw new DatabaseError(`${this.path} is not open for writing`, { path: this.path });
  }

  /**
   * `fn` on a new connection to this file's instance, with its own transactions (so its own
   * snapshot), closed when `fn` settles: the read server answers each reader on one. While one is
   * lent, reopen() does not reopen.
   */
  async withConnection<T>(fn: (connection: DuckDBConnection) => Promise<T>): Promise<T> {
    await this.reopening;
    this.assertOpen();
    this.lent += 1;
    try {
      const connection = await this.parts.connect();
      try {
        return await fn(connection);
      } finally {
        connection.closeSync();
      }
    } finally {
      this.lent -= 1;
    }
  }

  /**
   * The connection now holds state that later statements read, for the rest of this open (a temp
   * table such as a `--full` walk's seen ids): reopen() refuses from now on.
   */
  pinConnection(): void {
    this.pinned = true;
  }

  /** `hook` runs after every reopen(), on a new connection, before anything else; the returned function removes it. */
  onReopen(hook: ReopenHook): () => void {
    this.reopenHooks.add(hook);
    return () => this.reopenHooks.delete(hook);
  }

  /**
   * A writer's instance given back and opened again, between transactions: DuckDB keeps in memory
   * a description of every row group this process wrote (about 15 MiB a GB written), and a new
   * instance reads those of the file only as a statement needs them. The loader's staging is made
   * again; hooks (onReopen) run before any other statement. False, and nothing done, inside a
   * transaction, while a connection is lent, or when another handle shares the instance; the
   * caller asks again later; never once the connection is pinned (pinConnection). A failure to open again closes this Database and is thrown.
   */
  async reopen(): Promise<boolean> {
    this.assertOpen();
    const reopen = this.parts.reopen;
    const busy =
      this.pinned || this.depth > 0 || this.lent > 0 || this.running > 0 || this.reopening !== undefined;
    if (!reopen || busy || this.parts.sole?.() !== true) return false;
    let reopened = () => {};
    this.reopening = new Promise<void>((resolve) => {
      reopened = resolve;
    });
    let opened = false;
    try {
      this.dropConnections();
      this.parts = await reopen();
      this.connection = this.parts.connection;
      opened = true;
      for (const hook of this.reopenHooks) {
        const connection = await this.parts.connect();
        try {
          await hook(connection);
        } finally {
          connection.closeSync();
        }
      }
      return true;
    } catch (error) {
      this.closed = true;
      if (opened) this.dropConnections();
      throw error;
    } finally {
      this.reopening = undefined;
      reopened();
    }
  }

  /** Runs `fn` between BEGIN and COMMIT; any throw rolls back and is rethrown. */
  async transaction<T>(fn: () => Promise<T>): Promise<T> {
    if (this.depth > 0) return this.nested(fn);
    await this.ready();
    this.depth = 1;
    try {
      await this.connection.run('BEGIN TRANSACTION');
      const result = await fn();
      await this.commit();
      return result;
    } catch (error) {
      await this.rollbackQuietly();
      throw error;
    } finally {
      this.depth = 0;
      this.checkpointCommit = false;
      restrictFile(`${this.path}.wal`);
    }
  }

  /**
   * Asks the open transaction's COMMIT to write its changes straight into the file, not into the
   * WAL first (file/commit-checkpoint.ts): for a transaction of many rows. A few rows cost less
   * through the WAL (a checkpoint writes every row group's metadata anew). Outside a transaction,
   * or on a read-only open, nothing.
   */
  checkpointAtCommit(): void {
    if (this.depth > 0) this.checkpointCommit = true;
  }

  /** Closes the connection and gives the file back; once, whatever the opener set to run first. */
  async close(): Promise<void> {
    if (this.closed) return;
    await this.parts.beforeClose?.(this);
    this.closed = true;
    this.dropConnections();
  }

  /** Statements, connections and the instance given back. */
  private dropConnections(): void {
    for (const statement of this.statements.values()) statement?.destroySync();
    this.statements.clear();
    this.parts.staging?.closeSync();
    this.connection.closeSync();
    this.parts.release();
  }

  /** A failed COMMIT (disk full, WAL not writable) is a DatabaseError naming the file, not a crash. */
  private async commit(): Promise<void> {
    try {
      const threshold = this.parts.walThreshold;
      if (this.checkpointCommit && threshold) await commitWithCheckpoint(this.connection, threshold);
      else await this.connection.run('COMMIT');
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

  /** Waits out a reopen() in progress, then asserts the Database is open. */
  private async ready(): Promise<void> {
    await this.reopening;
    this.assertOpen();
  }

  private assertOpen(): void {
    if (this.closed) {
      throw new DatabaseError(`${this.path} is closed`, { path: this.path, hint: 'open it again' });
    }
  }
}

/**
 * A RowSource on `connection`, a connection of the file's instance (Database.connect) the caller
 * holds and closes: its statements run in its own transaction, so on its own snapshot.
 */
export function connectionRows(connection: DuckDBConnection, path: string): RowSource {
  return {
    path,
    async all<T = Record<string, unknown>>(sql: string, params?: SqlParams): Promise<T[]> {
      try {
        const values = toDuckParams(params);
        const result = values === undefined ? await connection.run(sql) : await connection.run(sql, values);
        return rowObjects(result).map((row) => plainRow(row) as T);
      } catch (error) {
        throw damagedOr(path, error);
      }
    },
  };
}

/** A file DuckDB opened but cannot read through (truncated, a block's checksum wrong) is damaged: say so, with the fix. */
function damagedOr(path: string, error: unknown): unknown {
  return damagedFileError(path, error) ?? error;
}
