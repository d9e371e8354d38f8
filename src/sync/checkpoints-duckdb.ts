/**
 * Checkpoints in the DuckDB file itself (table `checkpoints`), written inside the transaction that
 * commits the rows they cover: the watermark can never run ahead of the data.
 */
import type { Database } from '../store/database.js';
import { parseCheckpoint } from './checkpoint-schema.js';
import type { Checkpoint, CheckpointStore, SyncKind } from './types.js';

export class DuckDbCheckpointStore implements CheckpointStore {
  readonly name = 'duckdb';
  readonly phase = 'in-transaction';

  constructor(private readonly db: Database) {}

  async load(kind: SyncKind): Promise<Checkpoint | null> {
    const rows = await this.db.all<{ state: string }>(this.db.query('checkpoint-load'), { kind });
    return parseCheckpoint(rows[0]?.state);
  }

  /** Call inside the transaction that commits the rows the checkpoint covers. */
  async save(kind: SyncKind, checkpoint: Checkpoint): Promise<void> {
    await this.db.run(this.db.query('checkpoint-save'), { kind, state: JSON.stringify(checkpoint) });
  }

  async close(): Promise<void> {}
}
