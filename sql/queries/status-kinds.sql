-- Per kind: what the file holds and how the last run went.
WITH kinds(kind) AS (VALUES ('pre-recorded'), ('live')),
j AS (
  SELECT kind, count(*) FILTER (WHERE deleted_at IS NULL) AS jobs,
         count(*) FILTER (WHERE deleted_at IS NOT NULL) AS deleted,
         count(*) FILTER (WHERE status IN ('queued', 'processing') AND deleted_at IS NULL) AS pending,
         -- No key enforces jobs.id (see `verify`): a cheap check that it holds.
         count(*) - count(DISTINCT id) AS duplicate_ids
  FROM jobs GROUP BY kind
),
w AS (SELECT j.kind, count(*) AS words FROM words w JOIN jobs j ON j.id = w.job_id GROUP BY j.kind),
q AS (SELECT kind, count(*) AS quarantined FROM quarantine WHERE resolved_at IS NULL GROUP BY kind),
r AS (
  SELECT kind, outcome, strftime(started_at AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%SZ') AS started_at,
         inserted, updated, unchanged, quarantined, error,
         row_number() OVER (PARTITION BY kind ORDER BY started_at DESC) AS n
  FROM sync_runs
)
SELECT k.kind,
       json_extract_string(c.state, '$.watermark') AS watermark,
       coalesce(j.jobs, 0)::INTEGER AS jobs,
       coalesce(j.pending, 0)::INTEGER AS pending,
       coalesce(j.deleted, 0)::INTEGER AS deleted,
       coalesce(j.duplicate_ids, 0)::INTEGER AS duplicate_ids,
       coalesce(w.words, 0)::BIGINT AS words,
       coalesce(q.quarantined, 0)::INTEGER AS quarantined,
       r.started_at AS last_run_at, r.outcome AS last_outcome, r.error AS last_error
FROM kinds k
LEFT JOIN checkpoints c ON c.kind = k.kind
LEFT JOIN j ON j.kind = k.kind
LEFT JOIN w ON w.kind = k.kind
LEFT JOIN q ON q.kind = k.kind
LEFT JOIN r ON r.kind = k.kind AND r.n = 1
ORDER BY k.kind DESC
