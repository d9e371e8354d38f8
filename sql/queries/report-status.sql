-- Jobs per kind and status, for `report status`. Parameters as in report-billing.sql (the range is
-- of created_at); the figures are sql/102's status_figures, as in the jobs_by_status view.
SELECT *
FROM status_figures($from, $before, $kind, $include_deleted)
ORDER BY kind, status
