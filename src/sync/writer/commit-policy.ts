/**
 * When the writer's transactions commit, and how: every `commitRows` child rows or `commitBytes`
 * of JSON read (src/memory/budget.ts), and a transaction that stored at least a batch of JSON
 * (`batchBytes` of new or changed records) straight into the file at its commit, each row written
 * once, compressed. Less goes through the WAL: a checkpoint writes the metadata of every row group
 * anew, more than a few pages cost in the WAL
 * (docs/decisions/0009-a-commit-written-into-the-file-once.md), and a run that finds its records unchanged (an idle or `--full` run) stores next to nothing
 * however much it reads. The walk's writer and the re-check of pending jobs both commit by it.
 */

import type { LoadResult, RecordLoader } from '../../load/loader.js';
import type { MemoryPlan } from '../../memory/budget.js';
import type { Database } from '../../store/index.js';
import type { RunCounters } from '../counters.js';

/** Child rows stored, JSON bytes read and JSON bytes stored in the open transaction. */
export class TransactionSize {
  rows = 0;
  bytes = 0;
  storedBytes = 0;

  constructor(private readonly memory: MemoryPlan) {}

  /** Counts a load of `bytes` of JSON; true when the transaction is to commit now. */
  add(result: Pick<LoadResult, 'utterances' | 'words' | 'storedBytes'>, bytes: number): boolean {
    this.rows += result.utterances + result.words;
    this.bytes += bytes;
    this.storedBytes += result.storedBytes;
    return this.rows >= this.memory.commitRows || this.bytes >= this.memory.commitBytes;
  }

  /** Before the COMMIT: a transaction that stored at least a batch goes straight into the file. */
  beforeCommit(db: Database): void {
    if (this.storedBytes >= this.memory.batchBytes) db.checkpointAtCommit();
  }
}

const NOTHING_LOADED: LoadResult = {
  inserted: 0,
  updated: 0,
  unchanged: 0,
  restored: 0,
  quarantined: 0,
  utterances: 0,
  words: 0,
  storedBytes: 0,
};

/**
 * Before a commit: the records `loader` still holds staged are parsed into the open transaction,
 * their rows counted in `counters` and `size`. A transaction that fails instead `discard`s them.
 */
export async function flushStaged(
  loader: RecordLoader,
  counters: RunCounters,
  size: TransactionSize,
): Promise<void> {
  const flushed: LoadResult = { ...NOTHING_LOADED, ...(await loader.flush()) };
  counters.addLoad(flushed);
  size.add(flushed, 0);
}
