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
import { connectionRows, copyParquetFile, type SqlParams } from '../../store/index.js';
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
import type { ParquetCopy, Reader } from './reader.js';

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

/** A SocketReader when a writer serves reads of `path`, else undefined (no socket, or a dead one). */
export async function connectWriter(path: string): Promise<SocketReader | undefined> {
  const socketPath = socketPathOf(path);
  if (!existsSync(socketPath)) return undefined;
  try {
    const socket = await open(socketPath);
    socket.destroy();
    return new SocketReader(path, socketPath);
  } catch {
    return undefined;
  }
}

class SocketReader implements Reader {
  constructor(
    readonly path: string,
    private readonly socketPath: string,
  ) {}

  async all<T = Record<string, unknown>>(sql: string, params?: SqlParams): Promise<T[]> {
    const request: ReadRequest = { op: 'rows', sql, ...(params ? { params: { ...params } } : {}) };
    return this.request(request, async (reply) => (reply.rows ?? []) as T[]);
  }

  /** The writer answers with every result at once; those before a failing statement come with it. */
  async userQuery(sql: string, onTable: (table: ResultTable) => Promise<void> | void): Promise<void> {
    const reply = await this.request({ op: 'tables', sql }, async (reply) => reply, { partial: true });
    for (const table of reply.tables ?? []) await onTable(table);
    if (!reply.ok) throw this.failure(reply);
  }

  /** The writer writes the file in its temp folder, and it is copied from there. */
  async userQueryParquet(sql: string, file: string): Promise<number> {
    return this.request({ op: 'query-parquet', sql }, async (reply) => {
      if (!reply.file) throw this.broken('named no file');
      await copyFile(reply.file, file);
      return reply.count ?? 0;
    });
  }

  async copyParquet(copy: ParquetCopy): Promise<number> {
    const request: ReadRequest = { op: 'parquet', dataset: copy.dataset, params: copy.params };
    return this.request(request, async ({ file }) => {
      if (!file) throw this.broken('named no file');
      const target = { path: copy.targetDir, partitionBy: copy.partitionBy, setting: '--out' };
      return withPrivateDuckDB((connection) =>
        copyParquetFile(connectionRows(connection, this.path), file, target),
      );
    });
  }

  /**
   * `use` of the reply to `request` (one line each way), on a connection of its own that stays open
   * until `use` is done: the writer keeps a file it names until the reader hangs up. A refusal
   * throws unless `partial`.
   */
  private async request<T>(
    request: ReadRequest,
    use: (reply: Reply) => Promise<T>,
    options: { readonly partial?: boolean } = {},
  ): Promise<T> {
    const socket = await open(this.socketPath);
    try {
      const line = readWireLine(socket, {
        endEvent: 'close',
        ended: () => this.broken('hung up before answering (the run probably ended)'),
      });
      socket.write(`${encodeWire(request)}\n`);
      const reply = decodeWire(await line) as Reply;
      if (!reply.ok && !options.partial) throw this.failure(reply);
      return await use(reply);
    } finally {
      socket.destroy();
    }
  }

  private failure(reply: Reply): Error {
    return fromWireError(reply.error ?? { type: 'database', message: 'no reason given' }, this.path);
  }

  private broken(what: string): WriterGoneError {
    return new WriterGoneError(`the sync holding ${this.path} ${what}`, {
      path: this.path,
      retryable: true,
      hint: 'run the command again: it reads the file directly, or from the next run',
    });
  }
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
