-- The row groups of the history tables whose every commit of a back-fill leaves a small one (jobs,
-- utterances, module_results), with the sizes under which sql/load/row-groups.sql calls them small. A back-fill's writer merges these as it goes (src/load/file/merge-row-groups.ts),
-- so they stay few and binding this view stays cheap at any history; the groups of job_records and
-- words, which a back-fill's commits fill, are left to the close's count.
CREATE OR REPLACE TEMP VIEW _tsync_row_groups AS
WITH segments AS (
  SELECT 'jobs' AS t, row_group_id, count FROM pragma_storage_info('jobs') WHERE column_path = '[0]'
  UNION ALL SELECT 'utterances', row_group_id, count FROM pragma_storage_info('utterances') WHERE column_path = '[0]'
  UNION ALL SELECT 'module_results', row_group_id, count FROM pragma_storage_info('module_results') WHERE column_path = '[0]'
)
SELECT t, row_group_id, sum(count) AS n,
       CASE t WHEN 'jobs' THEN 2048 WHEN 'module_results' THEN 8192 ELSE 30720 END AS small_rows
FROM segments GROUP BY t, row_group_id;
