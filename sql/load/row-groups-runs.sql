-- The row groups of sync_runs alone, as sql/load/row-groups.sql makes them for every table that
-- grows: a run that wrote no job appends only its sync_runs rows (a row group of their own), and
-- binding this view reads sync_runs' segments only, not those of the history tables.
CREATE OR REPLACE TEMP VIEW _tsync_row_groups AS
SELECT 'sync_runs' AS t, row_group_id, sum(count) AS n, 2048 AS small_rows
FROM pragma_storage_info('sync_runs') WHERE column_path = '[0]'
GROUP BY row_group_id;
