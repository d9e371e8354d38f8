-- Per kind, the median and 95th percentile of the seconds from completed_at upstream to the write
-- (as freshness-run.sql counts them) of the jobs written since $since, and how many there were.
SELECT kind, count(*) AS jobs,
       quantile_cont(seconds, 0.5) AS p50,
       quantile_cont(seconds, 0.95) AS p95
FROM (
  SELECT j.kind, (epoch_ms(j.synced_at) - epoch_ms(j.completed_at)) / 1000.0 AS seconds
  FROM jobs j
  WHERE j.synced_at >= $since::TIMESTAMPTZ
    AND j.status IN ('done', 'error')
    AND j.completed_at IS NOT NULL
    AND j.completed_at >= (
      SELECT max(r.started_at) FROM sync_runs r
      WHERE r.kind = j.kind AND r.outcome = 'ok' AND r.finished_at <= j.synced_at
    )
)
GROUP BY kind
