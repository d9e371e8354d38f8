-- Billed jobs per period and kind, for `report billing` and the scheduled billing reports.
-- Counts done jobs with a billing_time (job_facts.billable). Parameters (all bound):
--   $by               'day' | 'month'
--   $from, $before    ISO instants, created_at >= $from and < $before (NULL: unbounded)
--   $kind             'pre-recorded' | 'live' | NULL (both)
--   $include_deleted  boolean: count jobs a --full sync no longer found upstream
SELECT
  CASE WHEN $by = 'month' THEN month ELSE strftime(day, '%Y-%m-%d') END               AS period,
  kind,
  count(*)                                                                            AS jobs,
  round(sum(CAST(billing_time AS DECIMAL(18, 6))) / 3600, 6)                          AS billed_hours,
  round(sum(CAST(coalesce(audio_duration, 0) AS DECIMAL(18, 6))) / 3600, 6)           AS audio_hours,
  round(sum(CAST(coalesce(transcription_time, 0) AS DECIMAL(18, 6))) / 3600, 6)       AS transcription_hours
FROM job_facts
WHERE billable
  AND ($include_deleted OR NOT is_deleted)
  AND ($from IS NULL OR created_at >= CAST($from AS TIMESTAMPTZ))
  AND ($before IS NULL OR created_at < CAST($before AS TIMESTAMPTZ))
  AND ($kind IS NULL OR kind = $kind)
GROUP BY ALL
ORDER BY period, kind
