-- Billed jobs per period and group, with a grand total, for `report billing` and the scheduled
-- billing files. Counts done jobs with a billing_time (job_facts.billable). Every figure is rounded
-- once, after summing (macros of sql/101_exact_billing.sql); the total row (is_total) is summed
-- from the jobs, not from the rounded rows. Parameters (all bound):
--   $by                day | week | month | quarter | year
--   $date              created | completed: the instant that decides the period
--   $from, $before     ISO instants, $from <= instant < $before (NULL: unbounded)
--   $kind              'pre-recorded' | 'live' | NULL (both)
--   $include_deleted   boolean: count jobs a --full sync no longer found upstream
--   $g1, $g2, $g3      group keys: kind | model | metadata.<key>, or NULL (slot unused)
--   $prices            JSON {"per_hour": {kind: price}, "models": {model: {kind: price}}} or NULL
-- A group key a job lacks (no model, no such metadata key, JSON null) is the group '(none)'.
-- `unpriced` lists 'kind' or 'kind model' of jobs without a price, which the caller refuses.
WITH jobs_in_range AS (
  SELECT
    *,
    period_of(basis_at, $by) AS period,
    list_transform([$g1, $g2, $g3], g ->
      CASE
        WHEN g IS NULL THEN NULL
        WHEN g = 'kind' THEN kind
        WHEN g = 'model' THEN coalesce(model, '(none)')
        ELSE coalesce(json_extract_string(custom_metadata, json_pointer_step(substr(g, 10))), '(none)')
      END) AS keys,
    keys[1] AS g1,
    keys[2] AS g2,
    keys[3] AS g3,
    CAST(coalesce(
      json_extract_string($prices, '/models' || json_pointer_step(model) || json_pointer_step(kind)),
      json_extract_string($prices, '/per_hour' || json_pointer_step(kind))
    ) AS DECIMAL(18, 6)) AS per_hour
  FROM report_jobs($date, $from, $before, $kind, $include_deleted)
  WHERE billable
)
SELECT
  grouping(period) = 1                                                  AS is_total,
  period,
  g1,
  g2,
  g3,
  count(*)                                                              AS jobs,
  seconds_figure(sum(exact_seconds(billing_time)))                      AS billed_seconds,
  hours_figure(sum(exact_seconds(billing_time)))                        AS billed_hours,
  CASE WHEN $prices IS NOT NULL THEN cost_figure(sum(exact_seconds(billing_time) * per_hour)) END AS cost,
  hours_figure(sum(exact_seconds(coalesce(audio_duration, 0))))         AS audio_hours,
  hours_figure(sum(exact_seconds(coalesce(transcription_time, 0))))     AS transcription_hours,
  list_sort(list_distinct(list(concat_ws(' ', kind, model)) FILTER (WHERE $prices IS NOT NULL AND per_hour IS NULL))) AS unpriced
FROM jobs_in_range
GROUP BY GROUPING SETS ((period, g1, g2, g3), ())
ORDER BY is_total, period, g1, g2, g3
