-- Rows of `jobs` for `--publish-raw`: as export-jobs.sql, with each job's `raw` (the record as
-- received, from job_records) after its columns; NULL for an erased job, which has none.
-- $include_deleted: boolean. JSON columns as VARCHAR, as there.
SELECT
  j.* EXCLUDE (content_hash, expired_at) REPLACE (
    CAST(j.custom_metadata AS VARCHAR) AS custom_metadata,
    CAST(j.post_session_metadata AS VARCHAR) AS post_session_metadata,
    CAST(j.request_params AS VARCHAR) AS request_params
  ),
  CAST(r.raw AS VARCHAR) AS raw,
  strftime(j.created_at AT TIME ZONE 'UTC', '%Y-%m') AS month
FROM jobs AS j LEFT JOIN job_records AS r ON r.job_id = j.id AND r.job_created_at = j.created_at
WHERE $include_deleted OR j.deleted_at IS NULL
