-- Per table that grows with the history: how many small row groups it holds, i.e. those that runs
-- append while DuckDB's merging is off (src/load/file/merge-row-groups.ts): under 256 rows of
-- `jobs` (a row holds the record's `raw`: a back-fill's checkpoints leave groups of hundreds of
-- jobs, which are not worth rewriting), under 2,048 (one vector) of the others.
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
)
SELECT coalesce(max(small), 0)::INTEGER AS small
FROM (SELECT t, count(*) FILTER (WHERE n < small_rows) AS small FROM groups GROUP BY t)
