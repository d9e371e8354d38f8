/** The `checkpoints` table: one row per kind, its checkpoint as JSON (src/sync/checkpoints). */
import type { JobKind } from '../../kinds.js';
import type { Database, RowSource } from '../database.js';
import { queryText } from './queries.js';

/** The kind's stored checkpoint as JSON text; undefined when it has none. */
export async function checkpointState(db: RowSource, params: { kind: JobKind }): Promise<string | undefined> {
  const rows = await db.all<{ state: string }>(queryText('checkpoint-load'), { kind: params.kind });
  return rows[0]?.state;
}

/** Stores the kind's checkpoint; inside the transaction that commits the rows it covers. */
export async function saveCheckpointState(
  db: Database,
  params: { kind: JobKind /** JSON text */; state: string },
): Promise<void> {
  await db.run(queryText('checkpoint-save'), { kind: params.kind, state: params.state });
}
