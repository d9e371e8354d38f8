-- The rows of batch $b of every table (merge-small-row-groups.sql), for merge-batch-move.sql.
CREATE OR REPLACE TEMP TABLE _tsync_move AS
SELECT t, row_id FROM _tsync_small_groups WHERE b = $b AND t <> 'job_records'
