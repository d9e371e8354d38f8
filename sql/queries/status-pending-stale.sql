-- Per kind, the pending jobs past --pending-max-age (created before $pending_since, which is now
-- minus $max_age_ms), split by whether a run has listed them since they went past it. A job counts
-- as re-checked when an ok run whose window held its created_at started after created_at plus the
-- max age and after $pending_since: that listing still said queued or processing. Otherwise the
-- row is as the last run that re-checked it left it, and a --full run brings it up to date.
-- An expired job is not pending: the service no longer lists it, no run can re-check it.
WITH stale AS (
  SELECT j.kind, j.created_at,
         (SELECT max(r.started_at) FROM sync_runs r
          WHERE r.kind = j.kind AND r.outcome = 'ok'
            AND (r.window_after IS NULL OR j.created_at >= r.window_after)
            AND j.created_at < r.window_before) AS listed_at
  FROM jobs j
  WHERE j.status IN ('queued', 'processing') AND j.deleted_at IS NULL AND j.expired_at IS NULL
    AND j.created_at < $pending_since::TIMESTAMPTZ
),
judged AS (
  SELECT kind, created_at, listed_at,
         coalesce(listed_at >= created_at + to_milliseconds($max_age_ms::BIGINT)
                  AND listed_at >= $pending_since::TIMESTAMPTZ, false) AS rechecked
  FROM stale
)
SELECT kind,
       (count(*) FILTER (WHERE NOT rechecked))::INTEGER AS not_rechecked,
       (count(*) FILTER (WHERE rechecked))::INTEGER AS upstream,
       strftime(min(created_at) FILTER (WHERE rechecked) AT TIME ZONE 'UTC', '%Y-%m-%d') AS upstream_since,
       strftime(min(listed_at) FILTER (WHERE rechecked) AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%S.%gZ') AS listed_at
FROM judged
GROUP BY kind
ORDER BY CASE kind WHEN 'pre-recorded' THEN 0 WHEN 'live' THEN 1 ELSE 2 END
