/**
 * The writer serves reads: no other process may open a file DuckDB holds for writing, so while a
 * run holds it, reports, status, query and export ask the writer over a unix socket beside it
 * (`<db>.sock`, mode 0600, there while the run has the file open). Each request gets its own
 * connection and a READ ONLY transaction (the data as of the last commit); the statement gate and
 * the instance sandbox hold as for a file opened read-only. A reader never blocks the writer.
 */

import { randomBytes } from 'node:crypto';
import { lstatSync, rmdirSync, rmSync } from 'node:fs';
import { chmod } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { ConfigError, DatabaseError, toError } from '../../errors.js';
import type { Logger } from '../../log.js';
import {
  connectionRows,
  copyDataset,
  type Database,
  type ExportedDataset,
  plainRow,
} from '../../store/index.js';
import { makeFolderSync } from '../../util/make-folder.js';
import { readerTable } from '../format/duckdb-result-table.js';
import { resultToParquet } from '../format/result-parquet.js';
import type { ResultTable } from '../format/result-table.js';
import { PARQUET_SINGLE, runGuarded, sandboxInstance } from './guarded-statements.js';
import {
  decodeWire,
  encodeWire,
  MAX_REQUEST_BYTES,
  type ReadRequest,
  readRequest,
  readWireLine,
  toWireError,
} from './read-wire.js';

/** Unix socket paths longer than this do not fit sockaddr_un (108 bytes on Linux, 104 on macOS). */
const MAX_SOCKET_PATH = 100;
/** Rows a statement may return over the socket: the writer holds a reply whole while it sends it. */
const MAX_ROWS = 200_000;
/** Requests answered at once; more are refused at once (each is a DuckDB connection in the writer). */
const MAX_REQUESTS = 8;

export interface ReadServer {
  /** undefined when the path was too long to serve on (readers then wait as before). */
  readonly socketPath: string | undefined;
  /** Stops accepting, interrupts requests in hand, removes the socket. Call before closing the database. */
  close(): Promise<void>;
}

export interface ServeOptions {
  readonly logger: Logger;
  /** Folders readers may read Parquet from (the publish folder); the writer may also write there. */
  readonly readableDirs?: readonly string[];
}

export function socketPathOf(dbPath: string): string {
  return `${dbPath}.sock`;
}

export async function serveReads(db: Database, options: ServeOptions): Promise<ReadServer> {
  // The sandbox is the instance's: a writer that opens its file again (Database.reopen) applies it again.
  const sandbox = (admin: DuckDBConnection) =>
    sandboxInstance(admin, { readableDirs: options.readableDirs ?? [], lockSettings: false });
  await db.withConnection(sandbox);
  const removeSandboxHook = db.onReopen(sandbox);
  const socketPath = socketPathOf(db.path);
  if (socketPath.length > MAX_SOCKET_PATH) {
    options.logger.warn(
      { socket_path: socketPath },
      'database path too long for a read socket: readers wait for this run',
    );
    return { socketPath: undefined, close: async () => void removeSandboxHook() };
  }
  removeStaleSocket(socketPath);
  const active = new Set<Request>();
  const server = createServer((socket) => {
    // A reader that hangs up early must never crash the sync: its socket errors end its request only.
    socket.on('error', (error) => options.logger.debug({ err: error }, 'read socket error'));
    if (active.size >= MAX_REQUESTS) {
      const busy = new DatabaseError(
        `the sync holding ${db.path} is answering ${MAX_REQUESTS} readers already`,
        { path: db.path, retryable: true, busy: true, hint: 'try again in a moment' },
      );
      socket.end(`${encodeWire({ ok: false, error: toWireError(busy) })}\n`);
      return;
    }
    const request = new Request(db, socket, options.logger);
    active.add(request);
    void request.serve().finally(() => active.delete(request));
  });
  await listen(server, socketPath);
  await chmod(socketPath, 0o600);
  options.logger.debug({ socket_path: socketPath }, 'serving reads');
  let closing: Promise<void> | undefined;
  return {
    socketPath,
    close: () => {
      closing ??= (async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        for (const request of active) request.abort();
        await Promise.all([...active].map((r) => r.done));
        await closed;
        rmSync(socketPath, { force: true });
        removeIfEmpty(`${db.path}.tmp`);
        removeSandboxHook();
      })();
      return closing;
    },
  };
}

/** We hold the database's write lock, so a socket left at our path belongs to a dead writer. */
function removeStaleSocket(path: string): void {
  try {
    if (!lstatSync(path).isSocket()) {
      throw new ConfigError(
        '--db',
        `${path} exists and is not a socket; move it aside so readers can reach the sync`,
      );
    }
    rmSync(path, { force: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/** The temp folder a Parquet reply created; DuckDB's own spill files keep it when present. */
function removeIfEmpty(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // missing or not empty: either way not ours to remove
  }
}

function listen(server: Server, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** One reader's connection: read the request line, answer it on a fresh DuckDB connection, end. */
class Request {
  private connection: DuckDBConnection | undefined;
  private aborted = false;
  private finish: () => void = () => {};
  readonly done = new Promise<void>((resolve) => {
    this.finish = resolve;
  });

  constructor(
    private readonly db: Database,
    private readonly socket: Socket,
    private readonly logger: Logger,
  ) {}

  abort(): void {
    this.aborted = true;
    this.connection?.interrupt();
    this.socket.destroy();
  }

  async serve(): Promise<void> {
    const temp: string[] = [];
    try {
      const line = await readWireLine(this.socket, {
        endEvent: 'end',
        ended: () => new Error('the reader hung up before sending a request'),
        maxBytes: MAX_REQUEST_BYTES,
        tooLong: () => new ConfigError('query', `the request is larger than ${MAX_REQUEST_BYTES} bytes`),
      });
      const request = readRequest.parse(decodeWire(line));
      const reply = await this.db.withConnection((connection) => this.answer(connection, request, temp));
      if (this.aborted || !this.socket.writable) return;
      this.socket.write(`${encodeWire({ ok: reply['error'] === undefined, ...reply })}\n`);
      // A Parquet reply names a file the reader copies from: it stays until the reader hangs up.
      if (temp.length > 0) await new Promise((resolve) => this.socket.once('close', resolve).resume());
      else this.socket.end();
    } catch (error) {
      if (!this.aborted && this.socket.writable)
        this.socket.end(`${encodeWire({ ok: false, error: toWireError(error) })}\n`);
      this.logger.debug({ err: toError(error) }, 'read request refused or failed');
    } finally {
      for (const file of temp) rmSync(file, { force: true });
      this.finish();
    }
  }

  /** The reply to `request`, on a fresh connection in a READ ONLY transaction. */
  private async answer(
    connection: DuckDBConnection,
    request: ReadRequest,
    temp: string[],
  ): Promise<Record<string, unknown>> {
    this.connection = connection;
    try {
      await connection.run('BEGIN TRANSACTION READ ONLY');
      switch (request.op) {
        case 'rows': {
          const readers = await runGuarded(connection, request.sql, this.db.path, {
            ...(request.params ? { params: request.params } : {}),
            maxRows: MAX_ROWS,
          });
          const rows = readers.at(-1)?.getRowObjectsJS() ?? [];
          return { rows: rows.map((row) => plainRow(row as Record<string, unknown>)) };
        }
        case 'tables': {
          const tables: ResultTable[] = [];
          try {
            await runGuarded(connection, request.sql, this.db.path, {
              maxRows: MAX_ROWS,
              each: (reader, explain) => {
                tables.push(readerTable(reader, explain));
              },
            });
            return { tables };
          } catch (error) {
            // The results of the statements before the failing one go with it, printed first.
            return { tables, error: toWireError(error) };
          }
        }
        case 'query-parquet':
          return { ...(await this.queryParquet(connection, request.sql, temp)) };
        case 'parquet':
          return { ...(await this.parquet(connection, request.dataset, request.params, temp)) };
      }
    } finally {
      this.connection = undefined;
      await connection.run('ROLLBACK').catch(() => {});
    }
  }

  /** A reader's one statement, its result written by a private DuckDB into the temp folder. */
  private async queryParquet(
    connection: DuckDBConnection,
    sql: string,
    temp: string[],
  ): Promise<{ file: string; count: number }> {
    const [reader] = await runGuarded(connection, sql, this.db.path, {
      maxRows: MAX_ROWS,
      single: PARQUET_SINGLE,
    });
    const file = this.tempFile(temp);
    return { file, count: reader ? await resultToParquet(reader, file) : 0 };
  }

  /** A new file name in DuckDB's own temp folder (`<db>.tmp`), removed when the request ends. */
  private tempFile(temp: string[]): string {
    const dir = `${this.db.path}.tmp`;
    makeFolderSync(dir, 0o700);
    const file = join(dir, `read-${randomBytes(6).toString('hex')}.parquet`);
    temp.push(file);
    return file;
  }

  /**
   * An exported dataset into DuckDB's own temp folder (`<db>.tmp`, which the sandbox always allows):
   * only the datasets of `export` (the request's schema), never a reader's SQL or path.
   */
  private async parquet(
    connection: DuckDBConnection,
    dataset: ExportedDataset,
    params: { readonly include_deleted: boolean },
    temp: string[],
  ): Promise<{ file: string; rows: number }> {
    const file = this.tempFile(temp);
    const target = { path: file, partitionBy: [], setting: 'export' };
    return {
      file,
      rows: await copyDataset(connectionRows(connection, this.db.path), dataset, params, target),
    };
  }
}
