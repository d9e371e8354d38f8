-- The sync_runs history, newest first, optionally of one kind. Instants as ISO 8601 UTC text.
SELECT run_id, kind, mode, outcome,
       strftime(started_at AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%S.%gZ') AS started_at,
       strftime(finished_at AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%S.%gZ') AS finished_at,
       round(epoch(finished_at) - epoch(started_at), 3)::DOUBLE AS duration_s,
       pages, requests, retries, jobs_fetched, inserted, updated, unchanged, quarantined, deleted, expired, restored,
       strftime(window_after AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%S.%gZ') AS window_after,
       strftime(window_before AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%S.%gZ') AS window_before,
       error
FROM sync_runs
WHERE $kind IS NULL OR kind = $kind
ORDER BY sync_runs.started_at DESC, kind
LIMIT $limit
