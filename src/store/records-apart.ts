/**
 * The copy of the stored records from jobs.raw into job_records that migration 006 needs before it
 * drops the column (sql/006_records_apart.sql): a batch of about JOBS_GROUP_RAW_BYTES of `raw` a
 * transaction, each committed straight into the file as a row group of its own, as `compact`
 * copies them: one statement over every record would not fit the writer's memory_limit. An
 * interrupted copy is emptied and done again: until 006 commits, jobs.raw is the records' only home.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { commitWithCheckpoint } from './file/commit-checkpoint.js';
import { JOBS_GROUP_RAW_BYTES } from './file/merge-row-groups.js';
import { copyRecordsApartBatch, recordsApartBatches, resetRecordsApart } from './statements/file-upkeep.js';

/**
 * Copies every record of jobs.raw into job_records; `walThreshold` is the writer's (open-instance.ts).
 * `onBatch` hears of each batch copied, and of how many there are.
 */
export async function copyRecordsApart(
  connection: DuckDBConnection,
  walThreshold: string,
  onBatch: (copied: number, batches: number) => void,
): Promise<void> {
  await resetRecordsApart(connection);
  const batches = await recordsApartBatches(connection, { batchBytes: JOBS_GROUP_RAW_BYTES });
  for (const [index, batch] of batches.entries()) {
    await connection.run('BEGIN TRANSACTION');
    try {
      await copyRecordsApartBatch(connection, batch);
      await commitWithCheckpoint(connection, walThreshold);
    } catch (error) {
      await connection.run('ROLLBACK').catch(() => {});
      throw error;
    }
    onBatch(index + 1, batches.length);
  }
}
