-- Rows of `jobs` for `--publish-raw`: as export-jobs.sql but keeping `raw` (the record as received).
-- $include_deleted: boolean.
SELECT j.* EXCLUDE (content_hash), strftime(j.created_at AT TIME ZONE 'UTC', '%Y-%m') AS month
FROM jobs AS j
WHERE $include_deleted OR j.deleted_at IS NULL
