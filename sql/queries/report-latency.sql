-- Seconds from created_at to completed_at of done jobs, per period and kind, for `report latency`.
-- Parameters as in report-billing.sql.
SELECT
  CASE WHEN $by = 'month' THEN month ELSE strftime(day, '%Y-%m-%d') END  AS period,
  kind,
  count(*)                                         AS jobs,
  round(quantile_cont(latency_seconds, 0.5), 3)    AS p50_seconds,
  round(quantile_cont(latency_seconds, 0.9), 3)    AS p90_seconds,
  round(quantile_cont(latency_seconds, 0.99), 3)   AS p99_seconds,
  round(max(latency_seconds), 3)                   AS max_seconds
FROM job_facts
WHERE status = 'done' AND latency_seconds IS NOT NULL
  AND ($include_deleted OR NOT is_deleted)
  AND ($from IS NULL OR created_at >= CAST($from AS TIMESTAMPTZ))
  AND ($before IS NULL OR created_at < CAST($before AS TIMESTAMPTZ))
  AND ($kind IS NULL OR kind = $kind)
GROUP BY ALL
ORDER BY period, kind
