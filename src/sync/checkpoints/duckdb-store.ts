/**
 * Checkpoints in the DuckDB file itself (table `checkpoints`), written inside the transaction that
 * commits the rows they cover: the watermark can never run ahead of the data.
 *
 * Which checkpoint a run starts from (resolveCheckpoint). The DuckDB copy is what the database
 * holds; the Redis copy (the worker's) is written after the commit.
 * - Both present: the earlier watermark wins (a file restored from a backup is behind Redis).
 * - Only Redis, but the file has no jobs of that kind: the file is new; start over.
 * - Only the file's: start from it ("Redis lost its keys" never means a full re-download).
 * - Neither: the newest successful run in sync_runs, else nothing (a first run).
 */
import type { JobKind } from '../../kinds.js';
import {
  checkpointState,
  countJobs,
  type Database,
  lastOkWindowBefore,
  type RowSource,
  saveCheckpointState,
} from '../../store/index.js';
import type { Checkpoint, CheckpointPhase, CheckpointStore } from '../types.js';
import { EMPTY_CHECKPOINT, parseCheckpoint } from './schema.js';

export class DuckDbCheckpointStore implements CheckpointStore {
  readonly name = 'duckdb';
  readonly phase = 'in-transaction';

  constructor(private readonly db: Database) {}

  load(kind: JobKind): Promise<Checkpoint | null> {
    return fileCheckpoint(this.db, kind);
  }

  /** Call inside the transaction that commits the rows the checkpoint covers. */
  async save(kind: JobKind, checkpoint: Checkpoint): Promise<void> {
    await saveCheckpointState(this.db, { kind, state: JSON.stringify(checkpoint) });
  }

  async close(): Promise<void> {}
}

/** The checkpoint the file holds for `kind`; `db` may read through a writer's read socket. */
export async function fileCheckpoint(db: RowSource, kind: JobKind): Promise<Checkpoint | null> {
  return parseCheckpoint(await checkpointState(db, { kind }));
}

/** `db` may read through a writer's read socket (`state show` while a sync runs). */
export async function resolveCheckpoint(
  db: RowSource,
  remote: CheckpointStore | undefined,
  kind: JobKind,
): Promise<Checkpoint> {
  const fromFile = await fileCheckpoint(db, kind);
  const fromRemote = remote ? await remote.load(kind) : null;
  if (fromFile && fromRemote) return earlier(fromFile, fromRemote);
  if (fromFile) return fromFile;
  if (fromRemote) return (await countJobs(db, { kind })) > 0 ? fromRemote : EMPTY_CHECKPOINT;
  const watermark = await lastOkWindowBefore(db, { kind });
  return watermark ? { ...EMPTY_CHECKPOINT, watermark: new Date(watermark).toISOString() } : EMPTY_CHECKPOINT;
}

function earlier(a: Checkpoint, b: Checkpoint): Checkpoint {
  if (a.watermark === null) return a;
  if (b.watermark === null) return b;
  return Date.parse(a.watermark) <= Date.parse(b.watermark) ? a : b;
}

/** Saves `checkpoint` into each store that saves in `phase`, in the stores' order. */
export async function saveCheckpoint(
  stores: readonly CheckpointStore[],
  kind: JobKind,
  checkpoint: Checkpoint,
  phase: CheckpointPhase,
): Promise<void> {
  for (const store of stores) if (store.phase === phase) await store.save(kind, checkpoint);
}
