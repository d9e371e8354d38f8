-- One fingerprint per (kind, month) partition of the published job tables (jobs, utterances, words,
-- module_results all follow their job, and a job's rows are replaced whole when its content_hash
-- changes): how many jobs, the latest synced_at, and an order-free hash of (id, content_hash).
-- Jobs no longer listed upstream (deleted_at set) are not published, so they do not count.
SELECT
  kind,
  strftime(created_at AT TIME ZONE 'UTC', '%Y-%m')            AS month,
  count(*)                                                     AS jobs,
  CAST(max(synced_at) AS VARCHAR)                              AS synced,
  CAST(bit_xor(hash(id, content_hash)) AS VARCHAR)             AS hash
FROM jobs
WHERE deleted_at IS NULL
GROUP BY ALL
