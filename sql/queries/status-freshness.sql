-- Per kind, the median and 95th percentile of the seconds from completed_at upstream to the write,
-- counted as freshness-run.sql counts them for each run that finished since $since, and how many
-- jobs they cover. Each run is bounded by the start of the kind's previous ok run (a window over
-- sync_runs), so the jobs are joined to the few recent runs only.
WITH runs AS (
  SELECT kind, started_at, finished_at,
         max(started_at) FILTER (WHERE outcome = 'ok') OVER (
           PARTITION BY kind ORDER BY finished_at ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
         ) AS previous_ok_started
  FROM sync_runs WHERE finished_at IS NOT NULL
),
recent AS (SELECT * FROM runs WHERE finished_at >= $since::TIMESTAMPTZ AND previous_ok_started IS NOT NULL),
lags AS (
  SELECT j.kind, (epoch_ms(j.synced_at) - epoch_ms(j.completed_at)) / 1000.0 AS seconds
  FROM jobs j JOIN recent r
    ON j.kind = r.kind AND j.synced_at >= r.started_at AND j.synced_at <= r.finished_at
  WHERE j.synced_at >= (SELECT min(started_at) FROM recent)
    AND j.status IN ('done', 'error')
    AND j.completed_at >= r.previous_ok_started
)
SELECT kind, count(*) AS jobs, quantile_cont(seconds, 0.5) AS p50, quantile_cont(seconds, 0.95) AS p95
FROM lags GROUP BY kind
