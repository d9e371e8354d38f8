-- Jobs per kind and status, for `report status`. Parameters as in report-billing.sql (the range is
-- of created_at).
SELECT kind, status, count(*) AS jobs
FROM report_jobs('created', $from, $before, $kind, $include_deleted)
GROUP BY ALL
ORDER BY kind, status
