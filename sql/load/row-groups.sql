-- The row groups of every table that grows with the history, with their rows and the size under
-- which a group is small: what an incremental run of a few jobs leaves, not what a back-fill's
-- commit does (each writes at least a batch, ~30 jobs of ~80 kB, straight into row groups of its
-- own: docs/decisions/0009-a-commit-written-into-the-file-once.md), so that a back-fill's groups are never moved (docs/decisions/0007-small-row-groups-merged-by-moving-rows.md).
-- Under 32 rows of `job_records` (a row holds a record as received, the costliest to rewrite) and
-- of `jobs` (one row per record), under 128 of `module_results` (~3-8 a job), under 2,048 (one
-- vector) of the others.
-- Read by compact-small-row-groups.sql and merge-small-row-groups.sql
-- (src/store/file/merge-row-groups.ts), which makes the view just before: binding it reads the
-- segments of every column (pragma_storage_info): costly at a large history.
CREATE OR REPLACE TEMP VIEW _tsync_row_groups AS
WITH segments AS (
  SELECT 'jobs' AS t, row_group_id, count FROM pragma_storage_info('jobs') WHERE column_path = '[0]'
  UNION ALL SELECT 'job_records', row_group_id, count FROM pragma_storage_info('job_records') WHERE column_path = '[0]'
  UNION ALL SELECT 'utterances', row_group_id, count FROM pragma_storage_info('utterances') WHERE column_path = '[0]'
  UNION ALL SELECT 'words', row_group_id, count FROM pragma_storage_info('words') WHERE column_path = '[0]'
  UNION ALL SELECT 'module_results', row_group_id, count FROM pragma_storage_info('module_results') WHERE column_path = '[0]'
  UNION ALL SELECT 'sync_runs', row_group_id, count FROM pragma_storage_info('sync_runs') WHERE column_path = '[0]'
),
groups AS (
  SELECT t, row_group_id, sum(count) AS n,
         CASE t WHEN 'job_records' THEN 32 WHEN 'jobs' THEN 32 WHEN 'module_results' THEN 128
                ELSE 2048 END AS small_rows
  FROM segments GROUP BY t, row_group_id
)
SELECT t, row_group_id, n, small_rows FROM groups;
