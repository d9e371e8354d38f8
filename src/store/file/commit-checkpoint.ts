/**
 * A COMMIT that writes the transaction's changes straight into the file: DuckDB checkpoints at a
 * commit that finds its WAL threshold passed, and writers open with
 * `auto_checkpoint_skip_wal_threshold` 0 (open-instance.ts), so such a commit skips the WAL
 * (docs/decisions/0009-a-commit-written-into-the-file-once.md). Should another connection hold a
 * transaction that needs the old data (a reader), DuckDB writes the WAL after all.
 */
import type { DuckDBConnection } from '@duckdb/node-api';

/**
 * COMMITs on `connection` with the WAL threshold at zero, then sets it back to `walThreshold` (the
 * writer's setting, as open-instance.ts spells it: a number of MiB), whatever the outcome. DuckDB's
 * SET takes no bound value; the threshold is the plan's number, never input.
 */
export async function commitWithCheckpoint(
  connection: DuckDBConnection,
  walThreshold: string,
): Promise<void> {
  if (!/^\d+MiB$/.test(walThreshold)) throw new Error(`not a WAL threshold: ${walThreshold}`);
  await connection.run("SET wal_autocheckpoint = '0B'");
  try {
    await connection.run('COMMIT');
  } finally {
    await connection.run(`SET wal_autocheckpoint = '${walThreshold}'`);
  }
}
