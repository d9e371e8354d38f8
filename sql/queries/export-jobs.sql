-- Rows of `jobs` for `transcript-sync export`, with the partition columns kind (already a column)
-- and month (UTC 'YYYY-MM' of created_at). `content_hash` stays out (the loader's bookkeeping), as
-- do `expired_at` (the mirror's finding, not the job's: a published dataset's partitions, written
-- at different times, keep one schema) and the record as received (job_records), which repeats
-- every other table. $include_deleted: boolean.
-- JSON columns are written as VARCHAR: Parquet's UTF-8 strings, which every reader takes as text
-- (DuckDB's JSON type becomes Parquet's JSON logical type, which pyarrow and polars read as binary).
SELECT
  j.* EXCLUDE (content_hash, expired_at) REPLACE (
    CAST(j.custom_metadata AS VARCHAR) AS custom_metadata,
    CAST(j.post_session_metadata AS VARCHAR) AS post_session_metadata,
    CAST(j.request_params AS VARCHAR) AS request_params
  ),
  strftime(j.created_at AT TIME ZONE 'UTC', '%Y-%m') AS month
FROM jobs AS j
WHERE $include_deleted OR j.deleted_at IS NULL
