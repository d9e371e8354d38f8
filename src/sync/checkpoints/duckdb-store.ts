/**
 * Checkpoints in the DuckDB file itself (table `checkpoints`), written inside the transaction that
 * commits the rows they cover: the watermark can never run ahead of the data.
 */

import type { JobKind } from '../../kinds.js';
import { checkpointState, type Database, saveCheckpointState } from '../../store/index.js';
import type { Checkpoint, CheckpointStore } from '../types.js';
import { parseCheckpoint } from './schema.js';

export class DuckDbCheckpointStore implements CheckpointStore {
  readonly name = 'duckdb';
  readonly phase = 'in-transaction';

  constructor(private readonly db: Database) {}

  async load(kind: JobKind): Promise<Checkpoint | null> {
    return parseCheckpoint(await checkpointState(this.db, { kind }));
  }

  /** Call inside the transaction that commits the rows the checkpoint covers. */
  async save(kind: JobKind, checkpoint: Checkpoint): Promise<void> {
    await saveCheckpointState(this.db, { kind, state: JSON.stringify(checkpoint) });
  }

  async close(): Promise<void> {}
}
