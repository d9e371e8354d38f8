/**
 * A DuckDB file's statements (SQL with bound values, on one connection) and transactions. open-file.ts
 * opens the file and hands a Database its connections and what closing means.
 */
import type {
  DuckDBAppender,
  DuckDBConnection,
  DuckDBMaterializedResult,
  DuckDBPreparedStatement,
} from '@duckdb/node-api';
import { DatabaseError } from '../errors.js';
import { type Logger, silentLogger } from '../log.js';
import { commitWithCheckpoint, damagedFileError, restrictFile } from './file/open-instance.js';
import { KeptStatements } from './kept-statements.js';
import { rowObjects, type SqlParams, toDuckParams } from './values.js';

export interface DatabaseParts {
  /** Absolute. */
  readonly path: string;
  readonly connection: DuckDBConnection;
  /** A new connection to the same file: its own transactions, so its own snapshot. */
  readonly connect: () => Promise<DuckDBConnection>;
  /** A writer's staging connections (the loader's parsing, outside its transactions): two, used in turn. */
  readonly staging?: readonly DuckDBConnection[];
  /** Run once the connections closed: gives the file back. */
  readonly release: () => void;
  /** A writer's: gives the file back and opens it again with the same settings, no migration. */
  readonly reopen?: () => Promise<DatabaseParts>;
  /** Whether these parts are the instance's only handle in the process (reopen needs that). */
  readonly sole?: () => boolean;
  /** A writer's WAL threshold as its DuckDB setting (file/open-instance.ts), for checkpointAtCommit. */
  readonly walThreshold?: string;
  /** Run once by close() while statements still run (a writer's merge and checkpoint); must not throw. */
  readonly beforeClose?: (db: Database) => Promise<void>;
  readonly logger?: Logger;
}

/** What a statement reads through: rows of SQL with bound values, a path for messages (Database, Reader). */
export interface RowSource {
  readonly path: string;
  all<T = Record<string, unknown>>(sql: string, params?: SqlParams): Promise<T[]>;
}

export class Database {
  readonly path: string;
  private parts: DatabaseParts;
  private readonly logger: Logger;
  private closed = false;
  /** Statements running on the main connection outside a transaction: no reopen meanwhile. */
  private running = 0;
  /** Connections withConnection() has lent and not yet had back: no reopen meanwhile either. */
  private lent = 0;
  /** Set while reopen() runs: statements and withConnection() wait for it. */
  private reopening: Promise<void> | undefined;
  private readonly hooks = new Set<(connection: DuckDBConnection) => Promise<void>>();
  /** Depth of `transaction()` calls: nested calls join the outer transaction. */
  private depth = 0;
  private checkpointCommit = false;
  private readonly statements = new KeptStatements();

  constructor(parts: DatabaseParts) {
    this.parts = parts;
    this.path = parts.path;
    this.logger = parts.logger ?? silentLogger;
  }

  async run(sql: string, params?: SqlParams): Promise<void> {
    await this.ready();
    await this.execute(sql, params);
  }

  /** Rows as plain objects: timestamps as Date, JSON as text, bigint as number when it is safe. */
  async all<T = Record<string, unknown>>(sql: string, params?: SqlParams): Promise<T[]> {
    await this.ready();
    return rowObjects<T>(await this.execute(sql, params));
  }

  private async execute(sql: string, params: SqlParams | undefined): Promise<DuckDBMaterializedResult> {
    this.running += 1;
    try {
      const values = toDuckParams(params);
      if (values === undefined) return await this.parts.connection.run(sql);
      return await this.statements.run(this.parts.connection, sql, values);
    } catch (error) {
      // A damaged block surfaces only when a statement reads it.
      throw damagedFileError(this.path, error) ?? error;
    } finally {
      this.running -= 1;
    }
  }

  /** Stops the statement running on the main connection, if any (DuckDB's "Interrupted"): a long read. */
  interrupt(): void {
    if (!this.closed) this.parts.connection.interrupt();
  }

  /** Each value of the first column of `sql`'s rows, read a chunk at a time: for results too big to hold at once. */
  async eachValue(sql: string, take: (value: unknown) => void): Promise<void> {
    await this.ready();
    this.running += 1;
    try {
      const result = await this.parts.connection.stream(sql);
      for (let chunk = await result.fetchChunk(); chunk?.rowCount; chunk = await result.fetchChunk())
        for (const value of chunk.getColumnValues(0)) take(value);
    } finally {
      this.running -= 1;
    }
  }

  /** An appender into `table` (a temp one: `catalog` 'temp') inside this connection's transaction; the caller closes it. */
  async createAppender(table: string, catalog: 'temp' | null = null): Promise<DuckDBAppender> {
    this.assertOpen();
    return this.parts.connection.createAppender(table, null, catalog);
  }

  /** `sql` prepared on this connection, for a caller that binds and runs it many times; the caller destroys it. */
  async prepare(sql: string): Promise<DuckDBPreparedStatement> {
    this.assertOpen();
    return this.parts.connection.prepare(sql);
  }

  /** A writer's two staging connections: the loader parses there, outside this connection's transaction. */
  stagingConnections(): readonly DuckDBConnection[] {
    this.assertOpen();
    if (this.parts.staging) return this.parts.staging;
    throw new DatabaseError(`${this.path} is not open for writing`, { path: this.path });
  }

  /** `fn` on a new connection (its own snapshot), closed when `fn` settles; reopen() waits meanwhile. */
  async withConnection<T>(fn: (connection: DuckDBConnection) => Promise<T>): Promise<T> {
    await this.ready();
    await this.reopening; // one a caller began while this one waited
    this.lent += 1;
    try {
      return await onNewConnection(this.parts, fn);
    } finally {
      this.lent -= 1;
    }
  }

  /** `hook` runs after every reopen(), on a new connection, before anything else; the returned function removes it. */
  onReopen(hook: (connection: DuckDBConnection) => Promise<void>): () => void {
    this.hooks.add(hook);
    return () => this.hooks.delete(hook);
  }

  /**
   * A writer's instance given back and opened again, between transactions: an instance keeps in memory
   * every row group it wrote. False, and nothing done, while busy or when another handle shares the
   * instance. A failure to open again closes this Database and is thrown.
   */
  async reopen(): Promise<boolean> {
    await this.ready();
    const reopen = this.parts.reopen;
    const busy = this.depth > 0 || this.running > 0 || this.lent > 0 || this.reopening !== undefined;
    if (!reopen || busy || this.parts.sole?.() !== true) return false;
    let done = () => {};
    this.reopening = new Promise<void>((resolve) => {
      done = resolve;
    });
    let opened = false;
    try {
      this.statements.clear();
      this.closeConnections();
      this.parts = await reopen();
      opened = true;
      for (const hook of this.hooks) await onNewConnection(this.parts, hook);
      return true;
    } catch (error) {
      if (opened) this.closeConnections();
      this.closed = true;
      throw error;
    } finally {
      this.reopening = undefined;
      done();
    }
  }

  /** Runs `fn` between BEGIN and COMMIT; any throw rolls back and is rethrown. */
  async transaction<T>(fn: () => Promise<T>): Promise<T> {
    if (this.depth > 0) {
      this.depth += 1;
      try {
        return await fn();
      } finally {
        this.depth -= 1;
      }
    }
    await this.ready();
    this.depth = 1;
    try {
      await this.parts.connection.run('BEGIN TRANSACTION');
      const result = await fn();
      await this.commit();
      return result;
    } catch (error) {
      // A failed COMMIT may already have ended the transaction; the first error is the one to report.
      await this.parts.connection
        .run('ROLLBACK')
        .catch((err) => this.logger.debug({ err }, 'rollback after a failed transaction did not run'));
      throw error;
    } finally {
      this.depth = 0;
      this.checkpointCommit = false;
      restrictFile(`${this.path}.wal`);
    }
  }

  /**
   * The open transaction's COMMIT writes straight into the file (commitWithCheckpoint): for many rows; a
   * few cost less through the WAL. Outside a transaction, or on a read-only open, nothing.
   */
  checkpointAtCommit(): void {
    if (this.depth > 0) this.checkpointCommit = true;
  }

  /** Closes the connection and gives the file back; once, whatever the opener set to run first. */
  async close(): Promise<void> {
    if (this.closed) return;
    await this.parts.beforeClose?.(this);
    this.closed = true;
    this.statements.clear();
    this.closeConnections();
  }

  private closeConnections(): void {
    for (const staging of this.parts.staging ?? []) staging.closeSync();
    this.parts.connection.closeSync();
    this.parts.release();
  }

  /** A failed COMMIT (disk full, WAL not writable) is a DatabaseError naming the file, not a crash. */
  private async commit(): Promise<void> {
    try {
      const threshold = this.parts.walThreshold;
      if (this.checkpointCommit && threshold) await commitWithCheckpoint(this.parts.connection, threshold);
      else await this.parts.connection.run('COMMIT');
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

  private async ready(): Promise<void> {
    await this.reopening;
    this.assertOpen();
  }

  private assertOpen(): void {
    if (this.closed)
      throw new DatabaseError(`${this.path} is closed`, { path: this.path, hint: 'open it again' });
  }
}

async function onNewConnection<T>(parts: DatabaseParts, fn: (connection: DuckDBConnection) => Promise<T>) {
  const connection = await parts.connect();
  try {
    return await fn(connection);
  } finally {
    connection.closeSync();
  }
}

/** A RowSource on `connection` (of the file's instance; the caller closes it), on its own snapshot. */
export function connectionRows(connection: DuckDBConnection, path: string): RowSource {
  return {
    path,
    async all<T = Record<string, unknown>>(sql: string, params?: SqlParams): Promise<T[]> {
      try {
        return rowObjects<T>(await connection.run(sql, toDuckParams(params)));
      } catch (error) {
        throw damagedFileError(path, error) ?? error;
      }
    },
  };
}
