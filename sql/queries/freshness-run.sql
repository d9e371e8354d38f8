-- Seconds from completed_at upstream to the write, of each job of kind $kind a run brought into
-- the file done or failed: written since $since (the kind's run start), and completed since the
-- start of the kind's last ok run that had finished before it. A job completed before that run
-- started was listed done by it; written again later, it is an edit, not news of its end. A kind
-- with no such run (a first sync's back-fill) has no figures. The bound is one value, so the
-- scan reads the run's own rows only.
SELECT (epoch_ms(j.synced_at) - epoch_ms(j.completed_at)) / 1000.0 AS seconds
FROM jobs j
WHERE j.kind = $kind
  AND j.synced_at >= $since::TIMESTAMPTZ
  AND j.status IN ('done', 'error')
  AND j.completed_at >= (
    SELECT max(started_at) FROM sync_runs
    WHERE kind = $kind AND outcome = 'ok' AND finished_at <= $since::TIMESTAMPTZ
  )
