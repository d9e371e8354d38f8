-- Per table that grows with the history: how many small row groups it holds (_tsync_row_groups,
-- sql/load/row-groups.sql), i.e. those that runs append while DuckDB's merging is off
-- (src/store/file/merge-row-groups.ts).
SELECT coalesce(max(small), 0)::INTEGER AS small
FROM (SELECT t, count(*) FILTER (WHERE n < small_rows) AS small FROM _tsync_row_groups GROUP BY t)
