/**
 * The writer serves reads: no other process may open a file DuckDB holds for writing, so while a
 * run holds it, reports, status, query and export ask the writer over a unix socket beside it
 * (`<db>.sock`, mode 0600, there while the run has the file open). Each request gets its own
 * connection and a READ ONLY transaction (the data as of the last commit); the statement gate and
 * the instance sandbox hold as for a file opened read-only. A reader never blocks the writer.
 */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { lstatSync, rmdirSync, rmSync } from 'node:fs';
import { chmod } from 'node:fs/promises';
import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { ConfigError, DatabaseError, toError } from '../../errors.js';
import type { Logger } from '../../log.js';
import { connectionRows, copyDataset, type Database, plainRow } from '../../store/index.js';
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

export interface ServeOptions {
  readonly logger: Logger;
  /** Folders readers may read Parquet from (the publish folder); the writer may also write there. */
  readonly readableDirs?: readonly string[];
}

export function socketPathOf(dbPath: string): string {
  return `${dbPath}.sock`;
}

/** Call `close` before closing the database: it stops accepting, interrupts requests, removes the socket. */
export async function serveReads(db: Database, options: ServeOptions): Promise<{ close(): Promise<void> }> {
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
    return { close: async () => void removeSandboxHook() };
  }
  removeStaleSocket(socketPath);
  const active = new Set<ReturnType<typeof serveRequest>>();
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
    const request = serveRequest(db, socket, options.logger);
    active.add(request);
    void request.done.finally(() => active.delete(request));
  });
  await once(server.listen(socketPath), 'listening');
  await chmod(socketPath, 0o600);
  options.logger.debug({ socket_path: socketPath }, 'serving reads');
  let closing: Promise<void> | undefined;
  return {
    close: () =>
      (closing ??= (async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        for (const request of active) request.abort();
        await Promise.all([...active].map((r) => r.done));
        await closed;
        rmSync(socketPath, { force: true });
        removeIfEmpty(`${db.path}.tmp`);
        removeSandboxHook();
      })()),
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

/**
 * One reader's connection: its request line answered on a fresh DuckDB connection. `abort`
 * interrupts the statement and hangs up; `done` settles once it ended and its temp files are gone.
 */
function serveRequest(db: Database, socket: Socket, logger: Logger) {
  let connection: DuckDBConnection | undefined;
  let aborted = false;
  const temp: string[] = [];
  const done = (async () => {
    try {
      const hungUp = () => new Error('the reader hung up before sending a request');
      const line = await readWireLine(socket, hungUp, MAX_REQUEST_BYTES);
      const request = readRequest.parse(decodeWire(line));
      const reply = await db.withConnection(async (opened) => {
        connection = opened;
        try {
          return await answer(db, opened, request, temp);
        } finally {
          connection = undefined;
        }
      });
      if (aborted || !socket.writable) return;
      socket.write(`${encodeWire({ ok: reply['error'] === undefined, ...reply })}\n`);
      // A Parquet reply names a file the reader copies from: it stays until the reader hangs up.
      if (temp.length > 0) await new Promise((resolve) => socket.once('close', resolve).resume());
      else socket.end();
    } catch (error) {
      if (!aborted && socket.writable)
        socket.end(`${encodeWire({ ok: false, error: toWireError(error) })}\n`);
      logger.debug({ err: toError(error) }, 'read request refused or failed');
    } finally {
      for (const file of temp) rmSync(file, { force: true });
    }
  })();
  const abort = () => {
    aborted = true;
    connection?.interrupt();
    socket.destroy();
  };
  return { abort, done };
}

/**
 * The reply to `request`, on a fresh connection in a READ ONLY transaction. A Parquet reply's file
 * is made in DuckDB's own temp folder (`<db>.tmp`, which the sandbox always allows) and listed in
 * `temp`, removed when the request ends.
 */
async function answer(
  db: Database,
  connection: DuckDBConnection,
  request: ReadRequest,
  temp: string[],
): Promise<Record<string, unknown>> {
  const tempFile = () => {
    makeFolderSync(`${db.path}.tmp`, 0o700);
    const file = join(`${db.path}.tmp`, `read-${randomBytes(6).toString('hex')}.parquet`);
    temp.push(file);
    return file;
  };
  try {
    await connection.run('BEGIN TRANSACTION READ ONLY');
    switch (request.op) {
      case 'rows': {
        const readers = await runGuarded(connection, request.sql, db.path, {
          ...(request.params ? { params: request.params } : {}),
          maxRows: MAX_ROWS,
        });
        const rows = readers.at(-1)?.getRowObjectsJS() ?? [];
        return { rows: rows.map((row) => plainRow(row as Record<string, unknown>)) };
      }
      case 'tables': {
        const tables: ResultTable[] = [];
        try {
          await runGuarded(connection, request.sql, db.path, {
            maxRows: MAX_ROWS,
            each: (reader, explain) => {
              tables.push(readerTable(reader, explain));
            },
          });
          return { tables };
        } catch (error) {
          return { tables, error: toWireError(error) };
        }
      }
      case 'query-parquet': {
        const single = PARQUET_SINGLE;
        const [reader] = await runGuarded(connection, request.sql, db.path, { maxRows: MAX_ROWS, single });
        const file = tempFile();
        return { file, count: reader ? await resultToParquet(reader, file) : 0 };
      }
      case 'parquet': {
        // Only the datasets of `export` (the request's schema), never a reader's SQL or path.
        const file = tempFile();
        const target = { path: file, partitionBy: [], setting: 'export' };
        const rows = connectionRows(connection, db.path);
        return { file, rows: await copyDataset(rows, request.dataset, request.params, target) };
      }
    }
  } finally {
    await connection.run('ROLLBACK').catch(() => {});
  }
}
