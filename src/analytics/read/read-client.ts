/**
 * The Reader of a file a writer holds: each call is one request on a new connection to the
 * writer's socket (src/analytics/read/read-server.ts), answered from a snapshot of its last commit.
 * A Parquet copy asks the writer for one unpartitioned file in its temp folder and partitions it
 * here, in a private in-memory DuckDB, so the writer never writes where a reader says.
 */

import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { copyFile } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { DatabaseError } from '../../errors.js';
import { copyParquetFile, type SqlParams, toDuckParams } from '../../store/index.js';
import { withPrivateDuckDB } from '../format/result-parquet.js';
import type { ResultTable } from '../format/result-table.js';
import { socketPathOf } from './read-server.js';
import {
  decodeWire,
  encodeWire,
  fromWireError,
  type ReadRequest,
  readWireLine,
  type WireError,
} from './read-wire.js';
import type { Reader } from './reader.js';

/** ms to wait for the writer to accept a connection. */
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
      const line = readWireLine(socket, {
        endEvent: 'close',
        ended: () => broken('hung up before answering (the run probably ended)'),
      });
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
    /** The writer answers with every result at once; those before a failing statement come with it. */
    async userQuery(sql, onTable) {
      const reply = await request({ op: 'tables', sql }, async (reply) => reply, true);
      for (const table of reply.tables ?? []) await onTable(table);
      if (!reply.ok) throw failure(reply);
    },
    /** The writer writes the file in its temp folder, and it is copied from there. */
    userQueryParquet: (sql, file) =>
      request({ op: 'query-parquet', sql }, async (reply) => {
        if (!reply.file) throw broken('named no file');
        await copyFile(reply.file, file);
        return reply.count ?? 0;
      }),
    copyParquet: ({ dataset, params, targetDir, partitionBy }) =>
      request({ op: 'parquet', dataset, params }, async ({ file }) => {
        if (!file) throw broken('named no file');
        const target = { path: targetDir, partitionBy, setting: '--out' };
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
