-- Seconds from created_at to completed_at of done jobs, per period (of created_at) and kind, for
-- `report latency`. Parameters as in report-billing.sql; the figures are sql/102's latency_figures,
-- as in the latency_daily view.
SELECT *
FROM latency_figures($by, $from, $before, $kind, $include_deleted)
ORDER BY period, kind
