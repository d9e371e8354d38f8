-- Billed jobs per period and group, with a grand total, for `report billing` and the scheduled
-- billing files. Counts done jobs with a billing_time (job_facts.billable). Every figure is rounded
-- once, after summing (macros of sql/101_exact_billing.sql); the total row (is_total) is summed
-- from the exact sums, never from rounded rows. Parameters (all bound):
--   $by                day | week | month | quarter | year
--   $date              created | completed: the instant that decides the period
--   $from, $before     ISO instants, $from <= instant < $before (NULL: unbounded)
--   $kind              'pre-recorded' | 'live' | NULL (both)
--   $include_deleted   boolean: count jobs a --full sync no longer found upstream
--   $g1, $g2, $g3      group keys: kind | model | metadata.<key>, or NULL (slot unused)
--   $prices            JSON {"per_hour": {kind: price}, "models": {model: {kind: price}}} or NULL
-- A price depends on kind and model only, so seconds are summed exactly per period, group, kind
-- and model first, and priced there: the same cost as pricing each job, in far fewer lookups.
-- `unpriced` lists 'kind' or 'kind model' of jobs without a price, which the caller refuses.
-- The figures are returned as DuckDB's text of their DECIMAL (1.500000): a JS number holds 15 to 17
-- digits, a DECIMAL(18, 6) 18, and the report prints them exactly.
WITH jobs_in_range AS (
  SELECT
    *,
    -- request_params is large: its model is parsed only when a group or a model's price needs it.
    CASE
      WHEN json_extract($prices, '/models') IS NOT NULL OR 'model' IN ($g1, $g2, $g3)
      THEN request_params ->> 'model'
    END AS model
  FROM report_jobs($date, $from, $before, $kind, $include_deleted)
  WHERE billable
),
per_price_key AS (
  SELECT
    period_of(basis_at, $by)                                AS period,
    group_key($g1, kind, model, custom_metadata)            AS g1,
    group_key($g2, kind, model, custom_metadata)            AS g2,
    group_key($g3, kind, model, custom_metadata)            AS g3,
    kind,
    model,
    count(*)                                                AS jobs,
    sum(exact_seconds(billing_time))                        AS seconds,
    sum(exact_seconds(coalesce(audio_duration, 0)))         AS audio_seconds,
    sum(exact_seconds(coalesce(transcription_time, 0)))     AS transcription_seconds
  FROM jobs_in_range
  GROUP BY ALL
),
priced AS (
  SELECT
    *,
    CAST(coalesce(
      json_extract_string($prices, '/models' || json_pointer_step(model) || json_pointer_step(kind)),
      json_extract_string($prices, '/per_hour' || json_pointer_step(kind))
    ) AS DECIMAL(18, 6)) AS per_hour
  FROM per_price_key
)
SELECT
  grouping(period) = 1                                                  AS is_total,
  period,
  g1,
  g2,
  g3,
  sum(jobs)                                                             AS jobs,
  CAST(seconds_figure(sum(seconds)) AS VARCHAR)                         AS billed_seconds,
  CAST(hours_figure(sum(seconds)) AS VARCHAR)                           AS billed_hours,
  CASE WHEN $prices IS NOT NULL THEN CAST(cost_figure(sum(seconds * per_hour)) AS VARCHAR) END AS cost,
  CAST(hours_figure(sum(audio_seconds)) AS VARCHAR)                     AS audio_hours,
  CAST(hours_figure(sum(transcription_seconds)) AS VARCHAR)             AS transcription_hours,
  list_sort(list_distinct(list(concat_ws(' ', kind, model)) FILTER (WHERE $prices IS NOT NULL AND per_hour IS NULL))) AS unpriced
FROM priced
GROUP BY GROUPING SETS ((period, g1, g2, g3), ())
ORDER BY is_total, period, g1, g2, g3
