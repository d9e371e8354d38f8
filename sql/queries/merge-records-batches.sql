-- The rows of `job_records` in small row groups (_tsync_small_groups, made by
-- merge-small-row-groups.sql) cut into batches of about $batch_bytes of `raw` each, as lists of row
-- ids, the highest row ids first (src/store/file/merge-row-groups.ts). Each batch is moved in a
-- transaction of its own, so it becomes a row group of its own: DuckDB decompresses `raw` a vector
-- of a row group at a time, and one row group of every small group's records could be a vector too
-- big for a reading within the budget. The checkpoint at each commit drops the row groups the batch
-- emptied, which renumbers the row ids above them only: the batches still to move lie below.
WITH lengths AS MATERIALIZED (
  SELECT rowid AS r, strlen(raw) AS n FROM job_records
  WHERE rowid IN (SELECT row_id FROM _tsync_small_groups WHERE t = 'job_records')
)
SELECT list(r ORDER BY r) AS ids
FROM (SELECT r, floor(sum(n) OVER (ORDER BY r ROWS UNBOUNDED PRECEDING) / $batch_bytes) AS b FROM lengths)
GROUP BY b
ORDER BY b DESC
