-- Exact billing figures (docs/decisions/0012-exact-billing-and-exact-json.md). sql/100 summed seconds exactly but divided a DECIMAL by 3600,
-- which DuckDB computes in DOUBLE, so billed_hours came out as a DOUBLE rounded per row. Here:
--
--   * each job's seconds are taken as DECIMAL(18,6): exact for what the service sends (at most
--     microseconds; a DOUBLE with more digits is rounded to the microsecond, once, per job);
--   * sums are exact DECIMAL(38,6), and every figure is rounded ONCE, after summing:
--     billed_seconds DECIMAL(18,3), billed_hours DECIMAL(18,6), cost DECIMAL(18,2);
--   * hours and money are divided in integers (half rounds up), never in DOUBLE, so the same jobs
--     always give the same digits whatever order DuckDB adds them in.
--
-- The macros below hold each formula once; the views here and the report queries in sql/queries
-- use them. Append-only like every migration: a later change is a new file.

-- One job's seconds, exact: billing_time, audio_duration and transcription_time are DOUBLE.
CREATE OR REPLACE MACRO exact_seconds(seconds) AS CAST(seconds AS DECIMAL(18, 6));

-- A sum of exact_seconds as billed_seconds: rounded to the millisecond.
CREATE OR REPLACE MACRO seconds_figure(seconds_sum) AS CAST(round(seconds_sum, 3) AS DECIMAL(18, 3));

-- A sum of exact_seconds as hours: microseconds / 3600 in integers, half up, to 6 decimals.
CREATE OR REPLACE MACRO hours_figure(seconds_sum) AS
  CAST(
    CAST((CAST(seconds_sum * 1000000 AS HUGEINT) + 1800) // 3600 AS DECIMAL(38, 0))
      * CAST(0.000001 AS DECIMAL(7, 6))
    AS DECIMAL(18, 6));

-- A sum of exact_seconds * price per hour (DECIMAL(18,6)) as money: / 3600, in cents, half up.
-- The product has 12 decimals; 1 cent of a price-seconds sum is 36 whole units.
CREATE OR REPLACE MACRO cost_figure(price_seconds_sum) AS
  CAST(
    CAST((CAST(price_seconds_sum * 1000000000000 AS HUGEINT) + 18000000000000) // 36000000000000 AS DECIMAL(38, 0))
      * CAST(0.01 AS DECIMAL(3, 2))
    AS DECIMAL(18, 2));

-- The UTC period of an instant: day 2026-11-21, week 2026-W47 (ISO 8601: weeks start on Monday,
-- week 1 holds the year's first Thursday, so 2027-01-01 is in 2026-W53), month 2026-11, quarter
-- 2026-Q4, year 2026.
CREATE OR REPLACE MACRO period_of(instant, unit) AS
  CASE unit
    WHEN 'day' THEN strftime(instant AT TIME ZONE 'UTC', '%Y-%m-%d')
    WHEN 'week' THEN strftime(instant AT TIME ZONE 'UTC', '%G-W%V')
    WHEN 'month' THEN strftime(instant AT TIME ZONE 'UTC', '%Y-%m')
    WHEN 'quarter' THEN strftime(instant AT TIME ZONE 'UTC', '%Y') || '-Q' || quarter(instant AT TIME ZONE 'UTC')
    WHEN 'year' THEN strftime(instant AT TIME ZONE 'UTC', '%Y')
  END;

-- A key of a JSON object as one step of a JSON pointer (RFC 6901: ~ and / escaped).
CREATE OR REPLACE MACRO json_pointer_step(key) AS '/' || replace(replace(key, '~', '~0'), '/', '~1');

-- The value of a report's group key for a job: 'kind', 'model' or 'metadata.<key>' (a key of
-- custom_metadata, as its JSON text); NULL for no key; '(none)' when the job lacks the key or holds
-- null for it.
CREATE OR REPLACE MACRO group_key(key, kind, model, custom_metadata) AS
  CASE
    WHEN key IS NULL THEN NULL
    WHEN key = 'kind' THEN kind
    WHEN key = 'model' THEN coalesce(model, '(none)')
    ELSE coalesce(json_extract_string(custom_metadata, json_pointer_step(substr(key, 10))), '(none)')
  END;

-- The jobs a report counts, filtered once for every report: job_facts plus `request_params` (whose
-- `model` reports group and price by; parsing it costs more than the rest of a report, so a query
-- takes ->> 'model' only when it needs it) and `custom_metadata` (how customers tag jobs), and
-- `basis_at`, the instant that decides the period (`date_basis` 'created' or 'completed'; a job not
-- completed yet has no completion date and is left out of a 'completed' report); within
-- [from_at, before_at) (NULL: open), of one kind (NULL: both), deleted jobs only when include_deleted.
CREATE OR REPLACE MACRO report_jobs(date_basis, from_at, before_at, kind_filter, include_deleted) AS TABLE
SELECT *
FROM (
  SELECT
    f.*,
    j.request_params,
    j.custom_metadata,
    CASE WHEN date_basis = 'completed' THEN f.completed_at ELSE f.created_at END AS basis_at
  FROM job_facts AS f
  JOIN jobs AS j ON j.id = f.id
) AS facts
WHERE basis_at IS NOT NULL
  AND (include_deleted OR NOT is_deleted)
  AND (kind_filter IS NULL OR kind = kind_filter)
  AND (from_at IS NULL OR basis_at >= CAST(from_at AS TIMESTAMPTZ))
  AND (before_at IS NULL OR basis_at < CAST(before_at AS TIMESTAMPTZ));

-- Billed jobs per UTC period and kind, exact: the figures of billing_daily and billing_monthly.
CREATE OR REPLACE MACRO billing_figures(unit) AS TABLE
SELECT
  period_of(created_at, unit)                                         AS period,
  kind,
  count(*)                                                            AS jobs,
  seconds_figure(sum(exact_seconds(billing_time)))                    AS billed_seconds,
  hours_figure(sum(exact_seconds(billing_time)))                      AS billed_hours,
  hours_figure(sum(exact_seconds(coalesce(audio_duration, 0))))       AS audio_hours,
  hours_figure(sum(exact_seconds(coalesce(transcription_time, 0))))   AS transcription_hours
FROM job_facts
WHERE billable AND NOT is_deleted
GROUP BY ALL;

-- Billed jobs per UTC day and kind (as in 100, plus billed_seconds; figures now DECIMAL).
CREATE OR REPLACE VIEW billing_daily AS
SELECT CAST(period AS DATE) AS day, * EXCLUDE (period) FROM billing_figures('day');

-- Billed jobs per UTC month ('YYYY-MM') and kind (as in 100, plus billed_seconds; figures now DECIMAL).
CREATE OR REPLACE VIEW billing_monthly AS
SELECT period AS month, * EXCLUDE (period) FROM billing_figures('month');

-- Jobs and billed hours per detected language and kind, exact (see 100 for the double counting).
CREATE OR REPLACE VIEW languages AS
SELECT
  language,
  kind,
  count(*)                                                    AS jobs,
  hours_figure(sum(exact_seconds(coalesce(billing_time, 0)))) AS billed_hours
FROM (
  SELECT kind, billing_time, unnest(languages) AS language
  FROM job_facts
  WHERE NOT is_deleted AND languages IS NOT NULL
) AS per_language
GROUP BY language, kind;
