-- Rows of `module_results` for `transcript-sync export`, with their job's partition columns: kind and
-- month (UTC 'YYYY-MM' of the job's created_at). $include_deleted: boolean. `results` is written as
-- VARCHAR, a UTF-8 string in Parquet (see export-jobs.sql).
SELECT
  c.* REPLACE (CAST(c.results AS VARCHAR) AS results),
  j.kind,
  strftime(j.created_at AT TIME ZONE 'UTC', '%Y-%m') AS month
FROM module_results AS c
JOIN jobs AS j ON j.id = c.job_id
WHERE $include_deleted OR j.deleted_at IS NULL
