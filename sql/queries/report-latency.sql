-- Seconds from created_at to completed_at of done jobs, per period (of created_at) and kind, for
-- `report latency`. Parameters as in report-billing.sql.
SELECT
  period_of(created_at, $by)                       AS period,
  kind,
  count(*)                                         AS jobs,
  round(quantile_cont(latency_seconds, 0.5), 3)    AS p50_seconds,
  round(quantile_cont(latency_seconds, 0.9), 3)    AS p90_seconds,
  round(quantile_cont(latency_seconds, 0.99), 3)   AS p99_seconds,
  round(max(latency_seconds), 3)                   AS max_seconds
FROM report_jobs('created', $from, $before, $kind, $include_deleted)
WHERE status = 'done' AND latency_seconds IS NOT NULL
GROUP BY ALL
ORDER BY period, kind
