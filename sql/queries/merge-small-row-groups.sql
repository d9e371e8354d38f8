-- The rows of the small row groups of every table that grows with the history (the small groups of
-- _tsync_row_groups, sql/load/row-groups.sql), by row id, each with the batch `b` it moves in
-- (src/store/file/merge-row-groups.ts): a table's rows in small groups, in stored order, cut into
-- batches of at most 4,096 rows of `jobs`, 8,192 of `module_results`, 61,440 of `utterances` and
-- `words`, 2,048 of `sync_runs`, so that a batch's appended rows fit a writer's memory_limit at
-- the smallest budget (96 MiB) and each batch becomes a row group no longer small.
-- merge-batch-pick.sql and merge-batch-move.sql move one batch of every table a transaction, the
-- highest batches first.
-- `job_records` is moved a batch of `raw` at a time (merge-records-batches.sql) from the row ids
-- this leaves here. A table with one small row group keeps it (moving it alone merges nothing).
-- A temp table: it goes with the writer's connection.
--
-- Row ids are positions: a row group's first row id is the rows of the groups before it (deleted
-- rows included, as pragma_storage_info counts them). Appended rows take row ids past the table's
-- end, and the checkpoint at each batch's commit drops the groups it emptied, which renumbers only
-- the row ids above them: the batches still to move lie below.
CREATE OR REPLACE TEMP TABLE _tsync_small_groups AS
WITH placed AS (
  SELECT t, n, small_rows, sum(n) OVER (PARTITION BY t ORDER BY row_group_id) - n AS first,
         count(*) FILTER (WHERE n < small_rows) OVER (PARTITION BY t) AS small_in_table
  FROM _tsync_row_groups
),
small AS (
  SELECT t, n, first, sum(n) OVER (PARTITION BY t ORDER BY first) - n AS moved_before,
         CASE t WHEN 'jobs' THEN 4096 WHEN 'module_results' THEN 8192 WHEN 'sync_runs' THEN 2048
                ELSE 61440 END AS batch_rows
  FROM placed WHERE n < small_rows AND small_in_table >= 2
),
rows AS (
  SELECT t, first, moved_before, batch_rows, unnest(range(first::BIGINT, (first + n)::BIGINT)) AS row_id
  FROM small
)
SELECT t, row_id, ((moved_before + row_id - first) // batch_rows)::INTEGER AS b FROM rows;
