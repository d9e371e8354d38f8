-- Seconds from completed_at upstream to the write, of each job of kind $kind a run brought into
-- the file done or failed: written since $since (the kind's run start), and completed since the
-- start of the kind's last ok run that had finished before the write. A job completed before that
-- run started was listed done by it; written again later, it is an edit, not news of its end. A
-- kind with no such run (a first sync's backfill) has no figures.
SELECT (epoch_ms(j.synced_at) - epoch_ms(j.completed_at)) / 1000.0 AS seconds
FROM jobs j
WHERE j.kind = $kind
  AND j.synced_at >= $since::TIMESTAMPTZ
  AND j.status IN ('done', 'error')
  AND j.completed_at IS NOT NULL
  AND j.completed_at >= (
    SELECT max(r.started_at) FROM sync_runs r
    WHERE r.kind = j.kind AND r.outcome = 'ok' AND r.finished_at <= j.synced_at
  )
