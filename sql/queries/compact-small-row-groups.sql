-- Per table that grows with the history: how many row groups hold fewer than 2,048 rows (one
-- vector), i.e. the small ones each run appends while merging is off (src/load/file/merge-row-groups.ts).
WITH segments AS (
  SELECT 'jobs' AS t, row_group_id, count FROM pragma_storage_info('jobs') WHERE column_path = '[0]'
  UNION ALL SELECT 'utterances', row_group_id, count FROM pragma_storage_info('utterances') WHERE column_path = '[0]'
  UNION ALL SELECT 'words', row_group_id, count FROM pragma_storage_info('words') WHERE column_path = '[0]'
  UNION ALL SELECT 'module_results', row_group_id, count FROM pragma_storage_info('module_results') WHERE column_path = '[0]'
  UNION ALL SELECT 'sync_runs', row_group_id, count FROM pragma_storage_info('sync_runs') WHERE column_path = '[0]'
),
groups AS (SELECT t, row_group_id, sum(count) AS n FROM segments GROUP BY t, row_group_id)
SELECT coalesce(max(small), 0)::INTEGER AS small
FROM (SELECT t, count(*) FILTER (WHERE n < 2048) AS small FROM groups GROUP BY t)
