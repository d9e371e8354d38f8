/**
 * What reports, `status`, `query` and `export` read through: the file opened read-only
 * (fileReader), or the writer over its socket while a sync runs (socketReader: one request per
 * call, ./read-server.ts). Both answer with the data as of one commit and refuse anything but
 * reading statements (./guarded-statements.ts).
 */
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { copyFile } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import type { DuckDBConnection } from '@duckdb/node-api';
import { DatabaseError } from '../../errors.js';
import {
  copyDataset,
  copyParquetFile,
  type Database,
  type ExportedDataset,
  type RowSource,
  type SqlParams,
  toDuckParams,
} from '../../store/index.js';
import { readerTable } from '../format/duckdb-result-table.js';
import { resultToParquet, withPrivateDuckDB } from '../format/result-parquet.js';
import type { ResultTable } from '../format/result-table.js';
import { PARQUET_SINGLE, runGuarded, sandboxInstance } from './guarded-statements.js';
import { socketPathOf } from './read-server.js';
import {
  decodeWire,
  encodeWire,
  fromWireError,
  type ReadRequest,
  readWireLine,
  type WireError,
} from './read-wire.js';

/** A RowSource (store statements run through it) that also runs a user's SQL. */
export interface Reader extends RowSource {
  /**
   * A user's SQL text (one or more statements): each statement's result handed to `onTable` in
   * order, as soon as it is complete. A failing statement throws after the results before it.
   */
  userQuery(sql: string, onTable: (table: ResultTable) => Promise<void> | void): Promise<void>;
  /**
   * A user's SQL text of one reading statement, its result written as one Parquet file at `file`
   * (absolute; its folder exists) with the result's own column types; returns the row count.
   */
  userQueryParquet(sql: string, file: string): Promise<number>;
  /** Writes an exported dataset's rows as Parquet at `target`, as copyDataset does; returns the row count. */
  copyParquet(
    dataset: ExportedDataset,
    params: { readonly include_deleted: boolean },
    target: Parameters<typeof copyDataset>[3],
  ): Promise<number>;
}

/**
 * The Reader of a file opened read-only. A user's SQL runs through the statement gate on a
 * connection of its own, on an instance sandboxed at the first user query (no file access outside
 * `readableDirs`, settings locked): the sandbox is permanent, and a Parquet copy needs none.
 */
export function fileReader(db: Database, readableDirs: readonly string[] = []): Reader {
  let sandboxApplied = false;
  const sandboxed = <T>(fn: (connection: DuckDBConnection) => Promise<T>): Promise<T> =>
    db.withConnection(async (connection) => {
      if (!sandboxApplied) await sandboxInstance(connection, { readableDirs, lockSettings: true });
      sandboxApplied = true;
      return fn(connection);
    });
  return {
    path: db.path,
    all: (sql, params) => db.all(sql, params),
    userQuery: (sql, onTable) =>
      sandboxed(async (connection) => {
        await runGuarded(connection, sql, db.path, {
          each: (reader, explain) => onTable(readerTable(reader, explain)),
        });
      }),
    userQueryParquet: (sql, file) =>
      sandboxed(async (connection) => {
        const [reader] = await runGuarded(connection, sql, db.path, { single: PARQUET_SINGLE });
        return reader ? resultToParquet(reader, file) : 0;
      }),
    copyParquet: (dataset, params, target) => copyDataset(db, dataset, params, target),
  };
}

const CONNECT_TIMEOUT_MS = 2_000;

interface Reply {
  readonly ok: boolean;
  readonly error?: WireError;
  readonly rows?: Record<string, unknown>[];
  readonly tables?: ResultTable[];
  readonly file?: string;
  /** Rows of a query-parquet reply's file. */
  readonly count?: number;
}

/** The writer closed the socket before answering: its run ended, so the file is probably free now. */
export class WriterGoneError extends DatabaseError {}

/** A Reader of the writer's socket when it serves reads of `path`, else undefined (no socket, or a dead one). */
export async function connectWriter(path: string): Promise<Reader | undefined> {
  const socketPath = socketPathOf(path);
  if (!existsSync(socketPath)) return undefined;
  try {
    (await open(socketPath)).destroy();
    return socketReader(path, socketPath);
  } catch {
    return undefined;
  }
}

function socketReader(path: string, socketPath: string): Reader {
  const broken = (what: string) =>
    new WriterGoneError(`the sync holding ${path} ${what}`, {
      path,
      retryable: true,
      hint: 'run the command again: it reads the file directly, or from the next run',
    });
  const failure = (reply: Reply) =>
    fromWireError(reply.error ?? { type: 'database', message: 'no reason given' }, path);
  /**
   * `use` of the reply to `request` (one line each way), on a connection of its own that stays open
   * until `use` is done: the writer keeps a file it names until the reader hangs up. A refusal
   * throws unless `partial`.
   */
  const request = async <T>(message: ReadRequest, use: (reply: Reply) => Promise<T>, partial = false) => {
    const socket = await open(socketPath);
    // Once the reply is read, the connection only keeps the file it names: a reset then is no error.
    socket.on('error', () => {});
    try {
      const line = readWireLine(socket, () => broken('hung up before answering (the run probably ended)'));
      socket.write(`${encodeWire(message)}\n`);
      const reply = decodeWire(await line) as Reply;
      if (!reply.ok && !partial) throw failure(reply);
      return await use(reply);
    } finally {
      socket.destroy();
    }
  };
  return {
    path,
    all<T>(sql: string, params?: SqlParams) {
      const message: ReadRequest = { op: 'rows', sql, ...(params ? { params: { ...params } } : {}) };
      return request(message, async (reply) => (reply.rows ?? []) as T[]);
    },
    async userQuery(sql, onTable) {
      const reply = await request({ op: 'tables', sql }, async (reply) => reply, true);
      for (const table of reply.tables ?? []) await onTable(table);
      if (!reply.ok) throw failure(reply);
    },
    userQueryParquet: (sql, file) =>
      request({ op: 'query-parquet', sql }, async (reply) => {
        if (!reply.file) throw broken('named no file');
        await copyFile(reply.file, file);
        return reply.count ?? 0;
      }),
    // One unpartitioned file from the writer's temp folder, partitioned here in a private DuckDB:
    // the writer never writes where a reader says.
    copyParquet: (dataset, params, target) =>
      request({ op: 'parquet', dataset, params }, async ({ file }) => {
        if (!file) throw broken('named no file');
        // The private DuckDB's errors are the copy's, never a sign that the database file is damaged.
        return withPrivateDuckDB((connection) => {
          const all = async <T>(sql: string, params?: SqlParams): Promise<T[]> =>
            (await connection.runAndReadAll(sql, toDuckParams(params))).getRowObjectsJS() as T[];
          return copyParquetFile({ path, all }, file, target);
        });
      }),
  };
}

async function open(socketPath: string): Promise<Socket> {
  const socket = connect(socketPath);
  const timer = setTimeout(() => socket.destroy(new Error('timed out connecting')), CONNECT_TIMEOUT_MS);
  try {
    await once(socket, 'connect');
    return socket;
  } finally {
    clearTimeout(timer);
  }
}
