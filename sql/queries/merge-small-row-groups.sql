-- Merges the small row groups of every table that grows with the history (as
-- compact-small-row-groups.sql counts them: under 256 rows of `jobs`, under 2,048 of the others) by
-- moving their rows, in the caller's transaction (src/load/file/merge-row-groups.ts): each table's rows in
-- small groups are appended again (into row groups of up to 122,880 rows), then deleted where they
-- were. A row group whose rows are all deleted is dropped at the next checkpoint and no other is
-- touched, so the merge writes the small groups' rows and nothing else. A table with one small
-- row group keeps it (moving it alone merges nothing).
--
-- Row ids are positions: a row group's first row id is the rows of the groups before it (deleted
-- rows included, as pragma_storage_info counts them). Appended rows take row ids past the table's
-- end, so the DELETE's ranges never reach them.
CREATE OR REPLACE TEMP TABLE _tsync_small_groups AS
WITH segments AS (
  SELECT 'jobs' AS t, row_group_id, count FROM pragma_storage_info('jobs') WHERE column_path = '[0]'
  UNION ALL SELECT 'utterances', row_group_id, count FROM pragma_storage_info('utterances') WHERE column_path = '[0]'
  UNION ALL SELECT 'words', row_group_id, count FROM pragma_storage_info('words') WHERE column_path = '[0]'
  UNION ALL SELECT 'module_results', row_group_id, count FROM pragma_storage_info('module_results') WHERE column_path = '[0]'
  UNION ALL SELECT 'sync_runs', row_group_id, count FROM pragma_storage_info('sync_runs') WHERE column_path = '[0]'
),
groups AS (
  SELECT t, row_group_id, sum(count) AS n, CASE t WHEN 'jobs' THEN 256 ELSE 2048 END AS small_rows
  FROM segments GROUP BY t, row_group_id
),
placed AS (
  SELECT t, n, small_rows, sum(n) OVER (PARTITION BY t ORDER BY row_group_id) - n AS first,
         count(*) FILTER (WHERE n < small_rows) OVER (PARTITION BY t) AS small_in_table
  FROM groups
)
SELECT t, unnest(range(first::BIGINT, (first + n)::BIGINT)) AS row_id
FROM placed WHERE n < small_rows AND small_in_table >= 2;

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
DROP TABLE _tsync_small_groups;
