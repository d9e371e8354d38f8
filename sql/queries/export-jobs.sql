-- Rows of `jobs` for `transcript-sync export`, with the partition columns kind (already a column)
-- and month (UTC 'YYYY-MM' of created_at). `raw` and `content_hash` stay out: raw repeats every
-- other table and the hash is the loader's bookkeeping. $include_deleted: boolean.
SELECT j.* EXCLUDE (raw, content_hash), strftime(j.created_at AT TIME ZONE 'UTC', '%Y-%m') AS month
FROM jobs AS j
WHERE $include_deleted OR j.deleted_at IS NULL
