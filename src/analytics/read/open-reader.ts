/**
 * The Reader (./reader.ts) a command reads through: the file opened read-only when no process
 * writes it, else the writer's socket. Only a holder that serves no reads (an older
 * transcript-sync, a BI tool with the file open for writing) makes a reader wait up to `lockWaitMs`
 * and then fail with a DatabaseError (busy).
 */
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DatabaseError } from '../../errors.js';
import {
  type Database,
  lockHolder,
  openInMemory,
  openReadOnly,
  type ReadOnlyOptions,
} from '../../store/index.js';
import { connectWriter, fileReader, type Reader, WriterGoneError } from './reader.js';

export interface ReaderOptions extends ReadOnlyOptions {
  /** How long to wait for a holder that does not serve reads, in ms. */
  readonly lockWaitMs: number;
  /** Folders a user's SQL may read files from (Parquet of export / --publish). */
  readonly readableDirs?: readonly string[];
}

/** ms between tries while the file is held and no socket answers (a writer still starting). */
const RETRY_MS = 100;
/** Times a reading is started over because the writer's run ended while it answered. */
const WRITER_GONE_RETRIES = 3;

export async function withReader<T>(
  path: string,
  options: ReaderOptions,
  fn: (reader: Reader) => Promise<T>,
): Promise<T> {
  const full = resolve(path);
  const deadline = Date.now() + options.lockWaitMs;
  let gone = 0;
  for (;;) {
    let db: Database;
    try {
      db = await openReadOnly(full, { ...options, lockWaitMs: 0 });
    } catch (error) {
      if (!(error instanceof DatabaseError && error.busy)) throw error;
      const writer = await connectWriter(full);
      // The commands' readings write nothing before they have every answer, so starting over is safe.
      if (writer) {
        try {
          return await fn(writer);
        } catch (thrown) {
          if (!(thrown instanceof WriterGoneError) || ++gone > WRITER_GONE_RETRIES) throw thrown;
          continue;
        }
      }
      if (Date.now() + RETRY_MS > deadline) throw waited(error, options.lockWaitMs);
      await sleep(RETRY_MS);
      continue;
    }
    return readAndClose(db, options, fn);
  }
}

async function readAndClose<T>(db: Database, options: ReaderOptions, fn: (reader: Reader) => Promise<T>) {
  try {
    return await fn(fileReader(db, options.readableDirs));
  } finally {
    await db.close();
  }
}

/**
 * `fn` with a Reader of an empty in-memory database, sandboxed as a file's, for SQL over the files
 * of `readableDirs` alone (`query --read` without a database file); `label` names it in messages.
 */
export async function withFilesReader<T>(
  label: string,
  options: ReaderOptions,
  fn: (reader: Reader) => Promise<T>,
): Promise<T> {
  const db = await openInMemory(label, { memory: options.memory });
  return readAndClose(db, options, fn);
}

/** A reading command's options from its settings: --lock-wait (ms) and --memory (bytes). */
export function readerOptions(settings: {
  readonly lockWait: number;
  readonly memory: number;
}): ReaderOptions {
  return { lockWaitMs: settings.lockWait, memory: settings.memory };
}

/** The busy error past the wait, naming the holder when it is the writer of the file's lock (compact, erase, ...). */
function waited(error: DatabaseError, lockWaitMs: number): DatabaseError {
  const pid = Number(/PID (\d+)/.exec(error.message)?.[1]);
  const holder = lockHolder(error.path);
  const message =
    holder?.pid === pid
      ? `${error.path} is being written by pid ${pid} (transcript-sync ${holder.command}) since ${holder.since}, which serves no reads`
      : `${error.message}, and it serves no reads`;
  return new DatabaseError(message, {
    path: error.path,
    retryable: true,
    busy: true,
    hint: `wait for it to finish and try again, or raise --lock-wait (waited ${lockWaitMs} ms)`,
    cause: error,
  });
}
