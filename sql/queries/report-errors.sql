-- Failed jobs per error_code and kind, for `report errors`. Parameters as in report-billing.sql
-- (the range is of created_at). Times are UTC ISO 8601 with milliseconds.
SELECT
  error_code,
  kind,
  count(*)                                                                    AS jobs,
  strftime(min(created_at) AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%S.%gZ')       AS first_created_at,
  strftime(max(created_at) AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%S.%gZ')       AS last_created_at
FROM report_jobs('created', $from, $before, $kind, $include_deleted)
WHERE status = 'error'
GROUP BY ALL
ORDER BY jobs DESC, error_code NULLS LAST, kind
