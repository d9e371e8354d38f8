-- Failed jobs per error_code and kind, for `report errors`. Parameters as in report-billing.sql
-- ($by unused). Times are UTC ISO 8601 with milliseconds.
SELECT
  error_code,
  kind,
  count(*)                                                                    AS jobs,
  strftime(min(created_at) AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%S.%gZ')       AS first_created_at,
  strftime(max(created_at) AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%S.%gZ')       AS last_created_at
FROM job_facts
WHERE status = 'error'
  AND ($include_deleted OR NOT is_deleted)
  AND ($from IS NULL OR created_at >= CAST($from AS TIMESTAMPTZ))
  AND ($before IS NULL OR created_at < CAST($before AS TIMESTAMPTZ))
  AND ($kind IS NULL OR kind = $kind)
GROUP BY ALL
ORDER BY jobs DESC, error_code NULLS LAST, kind
