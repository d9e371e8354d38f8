-- The (kind, month) partitions of the job datasets, with how many jobs each holds: what a COPY of
-- a job's rows joins them to (sql/queries/export-*.sql). $include_deleted: boolean.
SELECT
  kind || '|' || strftime(created_at AT TIME ZONE 'UTC', '%Y-%m') AS key,
  count(*)                                                         AS jobs
FROM jobs
WHERE $include_deleted OR deleted_at IS NULL
GROUP BY ALL
ORDER BY key
