/**
 * Which checkpoint a run starts from. The DuckDB copy is written in the same transaction as the
 * rows, so it is what the database holds; the Redis copy (the worker's) is written after the commit.
 * - Both present: the earlier watermark wins (a file restored from a backup is behind Redis).
 * - Only Redis, but the file has no jobs of that kind: the file is new; start over.
 * - Only the file's: start from it ("Redis lost its keys" never means a full re-download).
 * - Neither: the newest successful run in sync_runs, else nothing (a first run).
 */

import type { JobKind } from '../../kinds.js';
import { countJobs, type Database, lastOkWindowBefore } from '../../store/index.js';
import type { Checkpoint, CheckpointPhase, CheckpointStore } from '../types.js';
import type { DuckDbCheckpointStore } from './duckdb-store.js';
import { EMPTY_CHECKPOINT } from './schema.js';

export async function resolveCheckpoint(
  db: Database,
  local: DuckDbCheckpointStore,
  remote: CheckpointStore | undefined,
  kind: JobKind,
): Promise<Checkpoint> {
  const fromFile = await local.load(kind);
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
