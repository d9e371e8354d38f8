-- The rows of `jobs` cut into runs of consecutive row ids, in order, each holding about
-- $batch_bytes of `raw`, for the copy of the records into job_records before migration 006
-- (src/store/migrate.ts). Cut as compact-job-batches.sql cuts job_records.
-- Parameters (bound): $batch_bytes  bytes of `raw` a run holds, about.
-- Returns, per run, in order: first, last  BIGINT row ids of `jobs`, both included.
WITH lengths AS MATERIALIZED (SELECT rowid AS r, strlen(raw) AS n FROM jobs)
SELECT min(r) AS first, max(r) AS last
FROM (SELECT r, floor(sum(n) OVER (ORDER BY r ROWS UNBOUNDED PRECEDING) / $batch_bytes) AS b FROM lengths)
GROUP BY b
ORDER BY first
