-- Rows of `words` for `transcript-sync export`, with their job's partition columns: kind and
-- month (UTC 'YYYY-MM' of the job's created_at). $include_deleted: boolean.
SELECT c.*, j.kind, strftime(j.created_at AT TIME ZONE 'UTC', '%Y-%m') AS month
FROM words AS c
JOIN jobs AS j ON j.id = c.job_id
WHERE $include_deleted OR j.deleted_at IS NULL
