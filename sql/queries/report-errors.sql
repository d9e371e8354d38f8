-- Failed jobs per error_code and kind, for `report errors`. Parameters as in report-billing.sql
-- (the range is of created_at); the figures are sql/102's error_figures, as in the errors_by_code
-- view. Times are UTC ISO 8601 with milliseconds.
SELECT
  error_code,
  kind,
  jobs,
  strftime(first_created_at AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%S.%gZ')      AS first_created_at,
  strftime(last_created_at AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%S.%gZ')       AS last_created_at
FROM error_figures($from, $before, $kind, $include_deleted)
ORDER BY jobs DESC, error_code NULLS LAST, kind
