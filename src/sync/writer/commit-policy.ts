/**
 * When the writer's transactions commit, and how: every `commitRows` child rows or `commitBytes`
 * of JSON (src/memory/budget.ts), and a transaction of at least a batch of JSON straight into the
 * file at its commit, each row written once, compressed. Less goes through the WAL: a checkpoint
 * writes the metadata of every row group anew (~1.8 kB a row group of 8 columns;
 * docs/decisions/0034), more than a few pages cost in the WAL. The walk's writer and the
 * re-check of pending jobs both commit by it.
 */
import type { Database } from '../../load/database.js';
import type { MemoryPlan } from '../../memory/budget.js';

/** Child rows and JSON bytes loaded in the open transaction. */
export class TransactionSize {
  rows = 0;
  bytes = 0;

  constructor(private readonly memory: MemoryPlan) {}

  /** Counts a load; true when the transaction is to commit now. */
  add(rows: number, bytes: number): boolean {
    this.rows += rows;
    this.bytes += bytes;
    return this.rows >= this.memory.commitRows || this.bytes >= this.memory.commitBytes;
  }

  /** Before the COMMIT: a transaction of at least a batch goes straight into the file. */
  beforeCommit(db: Database): void {
    if (this.bytes >= this.memory.batchBytes) db.checkpointAtCommit();
  }
}
