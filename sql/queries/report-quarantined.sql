-- Quarantined records (failed validation, not resolved since) that a report of this range could
-- not count: of the kinds reported (or of no readable kind), whose $date instant read from the raw
-- record is in range, or whose created_at is unreadable (it could belong to any period).
-- Parameters as in report-billing.sql; $include_deleted unused.
SELECT count(*)::INTEGER AS n
FROM (
  SELECT
    kind,
    TRY_CAST(raw ->> 'created_at' AS TIMESTAMPTZ) AS created,
    CASE WHEN $date = 'completed' THEN TRY_CAST(raw ->> 'completed_at' AS TIMESTAMPTZ)
         ELSE TRY_CAST(raw ->> 'created_at' AS TIMESTAMPTZ) END AS basis_at
  FROM quarantine
  WHERE resolved_at IS NULL
) AS q
WHERE ($kind IS NULL OR kind IS NULL OR kind = $kind)
  AND (created IS NULL
       OR (basis_at IS NOT NULL
           AND ($from IS NULL OR basis_at >= CAST($from AS TIMESTAMPTZ))
           AND ($before IS NULL OR basis_at < CAST($before AS TIMESTAMPTZ))))
