/** The `checkpoints` table: one row per kind, its checkpoint as JSON (src/sync/checkpoints). */
import type { JobKind } from '../../kinds.js';
import type { Database, RowSource } from '../database.js';
import { only, queryText } from './queries.js';

/** The kind's stored checkpoint as JSON text; undefined when it has none. */
export async function checkpointState(db: RowSource, params: { kind: JobKind }): Promise<string | undefined> {
  const [row] = await db.all<{ state: string }>(queryText('checkpoint-load'), only(params, 'kind'));
  return row?.state;
}

/**
 * Stores the kind's checkpoint; inside the transaction that commits the rows it covers. The row is
 * replaced, and added only when the kind has none yet (one writer per file: nothing adds it between).
 */
export async function saveCheckpointState(
  db: Database,
  params: { kind: JobKind /** JSON text */; state: string },
): Promise<void> {
  const values = only(params, 'kind', 'state');
  const replaced = await db.all(queryText('checkpoint-save'), values);
  if (replaced.length === 0) await db.run(queryText('checkpoint-add'), values);
}
