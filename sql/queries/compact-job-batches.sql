-- The jobs' records (`job_records`) cut into runs of consecutive row ids, in order, each holding about
-- $batch_bytes of `raw` (JOBS_GROUP_RAW_BYTES): `compact` copies each run in a transaction of its
-- own, so each becomes a row group of its own (src/store/file/rewrite-file.ts). A run holds the
-- rows whose running total of raw bytes falls in one multiple of $batch_bytes: at most
-- $batch_bytes plus its first record. The lengths are read once, into a materialized list of
-- (row id, bytes), before the window sorts it. merge-records-batches.sql cuts the same way.
WITH lengths AS MATERIALIZED (SELECT rowid AS r, strlen(raw) AS n FROM job_records)
SELECT min(r) AS first, max(r) AS last
FROM (SELECT r, floor(sum(n) OVER (ORDER BY r ROWS UNBOUNDED PRECEDING) / $batch_bytes) AS b FROM lengths)
GROUP BY b
ORDER BY first
