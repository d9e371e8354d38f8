-- Per kind: what the file holds and how the last run went. Pending jobs are split at
-- $pending_since (the run's start minus --pending-max-age): younger ones are re-checked every run,
-- older ones no longer. An expired job is not pending: the service no longer lists it. Quarantined
-- records whose kind is not a known one count under 'unknown' (a row that only appears when there
-- are some).
WITH q AS (
  SELECT CASE WHEN kind IN ('pre-recorded', 'live') THEN kind ELSE 'unknown' END AS kind,
         count(*) AS quarantined
  FROM quarantine WHERE resolved_at IS NULL GROUP BY 1
),
kinds(kind) AS (VALUES ('pre-recorded'), ('live') UNION SELECT kind FROM q),
j AS (
  SELECT kind, count(*) FILTER (WHERE deleted_at IS NULL) AS jobs,
         count(*) FILTER (WHERE deleted_at IS NOT NULL) AS deleted,
         count(*) FILTER (WHERE expired_at IS NOT NULL AND deleted_at IS NULL) AS expired,
         count(*) FILTER (WHERE status IN ('queued', 'processing') AND deleted_at IS NULL
                          AND expired_at IS NULL AND created_at >= $pending_since::TIMESTAMPTZ) AS pending,
         count(*) FILTER (WHERE status IN ('queued', 'processing') AND deleted_at IS NULL
                          AND expired_at IS NULL AND created_at < $pending_since::TIMESTAMPTZ) AS pending_stale,
         -- No key enforces jobs.id (see `verify`): a cheap check that it holds.
         count(*) - count(DISTINCT id) AS duplicate_ids
  FROM jobs GROUP BY kind
),
-- Words counted per job first, then joined to the jobs: a join of every word to its job spilled
-- gigabytes and passed the budget at a million jobs (BENCHMARKS.md, "A million jobs, to the end").
w AS (
  SELECT j.kind, sum(c.n) AS words
  FROM (SELECT job_id, count(*) AS n FROM words GROUP BY job_id) c JOIN jobs j ON j.id = c.job_id
  GROUP BY j.kind
),
r AS (
  SELECT kind, outcome, strftime(started_at AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%S.%gZ') AS started_at,
         inserted, updated, unchanged, quarantined, error,
         row_number() OVER (PARTITION BY kind ORDER BY started_at DESC) AS n
  FROM sync_runs
)
SELECT k.kind,
       json_extract_string(c.state, '$.watermark') AS watermark,
       coalesce(j.jobs, 0)::INTEGER AS jobs,
       coalesce(j.pending, 0)::INTEGER AS pending,
       coalesce(j.pending_stale, 0)::INTEGER AS pending_stale,
       coalesce(j.deleted, 0)::INTEGER AS deleted,
       coalesce(j.expired, 0)::INTEGER AS expired,
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
ORDER BY CASE k.kind WHEN 'pre-recorded' THEN 0 WHEN 'live' THEN 1 ELSE 2 END
