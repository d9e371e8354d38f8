-- Merges the small row groups of every table that grows with the history but `job_records` (the
-- small groups of _tsync_row_groups, sql/load/row-groups.sql) by moving their rows, in the caller's
-- transaction (src/load/file/merge-row-groups.ts): each table's rows in small groups are appended
-- again (into row groups of up to 122,880 rows), then deleted where they were. A row group whose
-- rows are all deleted is dropped at the next checkpoint and no other is touched, so the merge
-- writes the small groups' rows and nothing else. A table with one small row group keeps it
-- (moving it alone merges nothing). At most 2,000,000 rows of a table move in one merge, the
-- oldest groups first (until a group passes that mark): DuckDB holds a transaction's deletions in
-- memory, 8 bytes a row, until it commits, and a file upgraded from one layout to another may hold
-- tens of millions of rows in small groups; the next merge takes the rest. `job_records` is merged
-- after, a batch of `raw` at a time (merge-records-batches.sql), from the row ids this leaves in
-- _tsync_small_groups (a temp table: it goes with the writer's connection).
--
-- Row ids are positions: a row group's first row id is the rows of the groups before it (deleted
-- rows included, as pragma_storage_info counts them). Appended rows take row ids past the table's
-- end, so the DELETE's ranges never reach them.
CREATE OR REPLACE TEMP TABLE _tsync_small_groups AS
WITH placed AS (
  SELECT t, n, small_rows, sum(n) OVER (PARTITION BY t ORDER BY row_group_id) - n AS first,
         count(*) FILTER (WHERE n < small_rows) OVER (PARTITION BY t) AS small_in_table
  FROM _tsync_row_groups
),
small AS (
  SELECT t, n, first, sum(n) OVER (PARTITION BY t ORDER BY first) - n AS moved_before
  FROM placed WHERE n < small_rows AND small_in_table >= 2
)
SELECT t, unnest(range(first::BIGINT, (first + n)::BIGINT)) AS row_id
FROM small WHERE moved_before < 2000000;

INSERT INTO jobs SELECT * FROM jobs WHERE rowid IN (SELECT row_id FROM _tsync_small_groups WHERE t = 'jobs');
DELETE FROM jobs WHERE rowid IN (SELECT row_id FROM _tsync_small_groups WHERE t = 'jobs');
INSERT INTO utterances SELECT * FROM utterances WHERE rowid IN (SELECT row_id FROM _tsync_small_groups WHERE t = 'utterances');
DELETE FROM utterances WHERE rowid IN (SELECT row_id FROM _tsync_small_groups WHERE t = 'utterances');
INSERT INTO words SELECT * FROM words WHERE rowid IN (SELECT row_id FROM _tsync_small_groups WHERE t = 'words');
DELETE FROM words WHERE rowid IN (SELECT row_id FROM _tsync_small_groups WHERE t = 'words');
INSERT INTO module_results SELECT * FROM module_results WHERE rowid IN (SELECT row_id FROM _tsync_small_groups WHERE t = 'module_results');
DELETE FROM module_results WHERE rowid IN (SELECT row_id FROM _tsync_small_groups WHERE t = 'module_results');
INSERT INTO sync_runs SELECT * FROM sync_runs WHERE rowid IN (SELECT row_id FROM _tsync_small_groups WHERE t = 'sync_runs');
DELETE FROM sync_runs WHERE rowid IN (SELECT row_id FROM _tsync_small_groups WHERE t = 'sync_runs');
