-- Jobs per kind and status, for `report status`. Parameters as in report-billing.sql ($by unused).
SELECT kind, status, count(*) AS jobs
FROM job_facts
WHERE ($include_deleted OR NOT is_deleted)
  AND ($from IS NULL OR created_at >= CAST($from AS TIMESTAMPTZ))
  AND ($before IS NULL OR created_at < CAST($before AS TIMESTAMPTZ))
  AND ($kind IS NULL OR kind = $kind)
GROUP BY ALL
ORDER BY kind, status
