-- The report filter and the figures of the views, each written once. After 101 the
-- filter "not deleted, of this kind, in this range" was still written in every view of 100 and 101
-- and again in report_jobs, and the status, latency and error figures twice: in their views and in
-- sql/queries/report-{status,latency,errors}.sql. Here:
--
--   * counted_jobs holds the filter: job_facts with `basis_at`, the instant that decides the
--     period, kept when in range, of the kind, and not deleted unless asked for;
--   * report_jobs (101's contract, same columns in the same order) is counted_jobs plus the
--     request_params and custom_metadata that billing groups and prices by;
--   * status_figures, latency_figures and error_figures hold the figures; the views are those
--     macros over every job not deleted (latency per UTC day), the reports the same macros over
--     their range, and billing_figures and languages count counted_jobs too.
--
-- Results are the same as before on every view and report (test/unit/store/sql-macros.test.ts compares them
-- on one file before and after this migration). Append-only like every migration.

-- The jobs a view or report counts: `date_basis` 'created' or 'completed' picks basis_at (a job not
-- completed has none and is left out of a 'completed' count); within [from_at, before_at) (NULL:
-- open), of one kind (NULL: both), deleted jobs only when include_deleted.
CREATE OR REPLACE MACRO counted_jobs(date_basis, from_at, before_at, kind_filter, include_deleted) AS TABLE
SELECT *
FROM (
  SELECT
    f.*,
    CASE WHEN date_basis = 'completed' THEN f.completed_at ELSE f.created_at END AS basis_at
  FROM job_facts AS f
) AS facts
WHERE basis_at IS NOT NULL
  AND (include_deleted OR NOT is_deleted)
  AND (kind_filter IS NULL OR kind = kind_filter)
  AND (from_at IS NULL OR basis_at >= CAST(from_at AS TIMESTAMPTZ))
  AND (before_at IS NULL OR basis_at < CAST(before_at AS TIMESTAMPTZ));

-- The jobs a report counts with the columns billing groups and prices by (see 101 for the cost of
-- parsing request_params).
CREATE OR REPLACE MACRO report_jobs(date_basis, from_at, before_at, kind_filter, include_deleted) AS TABLE
SELECT c.* EXCLUDE (basis_at), j.request_params, j.custom_metadata, c.basis_at
FROM counted_jobs(date_basis, from_at, before_at, kind_filter, include_deleted) AS c
JOIN jobs AS j ON j.id = c.id;

-- Jobs per kind and status (of created_at in range).
CREATE OR REPLACE MACRO status_figures(from_at, before_at, kind_filter, include_deleted) AS TABLE
SELECT kind, status, count(*) AS jobs
FROM counted_jobs('created', from_at, before_at, kind_filter, include_deleted)
GROUP BY ALL;

-- Seconds from created_at to completed_at of done jobs, per UTC period of created_at and kind.
CREATE OR REPLACE MACRO latency_figures(unit, from_at, before_at, kind_filter, include_deleted) AS TABLE
SELECT
  period_of(created_at, unit)                      AS period,
  kind,
  count(*)                                         AS jobs,
  round(quantile_cont(latency_seconds, 0.5), 3)    AS p50_seconds,
  round(quantile_cont(latency_seconds, 0.9), 3)    AS p90_seconds,
  round(quantile_cont(latency_seconds, 0.99), 3)   AS p99_seconds,
  round(max(latency_seconds), 3)                   AS max_seconds
FROM counted_jobs('created', from_at, before_at, kind_filter, include_deleted)
WHERE status = 'done' AND latency_seconds IS NOT NULL
GROUP BY ALL;

-- Failed jobs per error_code (NULL when the service sent none) and kind.
CREATE OR REPLACE MACRO error_figures(from_at, before_at, kind_filter, include_deleted) AS TABLE
SELECT
  error_code,
  kind,
  count(*)         AS jobs,
  min(created_at)  AS first_created_at,
  max(created_at)  AS last_created_at
FROM counted_jobs('created', from_at, before_at, kind_filter, include_deleted)
WHERE status = 'error'
GROUP BY ALL;

-- Billed jobs per UTC period and kind, exact (101's figures, over counted_jobs).
CREATE OR REPLACE MACRO billing_figures(unit) AS TABLE
SELECT
  period_of(created_at, unit)                                         AS period,
  kind,
  count(*)                                                            AS jobs,
  seconds_figure(sum(exact_seconds(billing_time)))                    AS billed_seconds,
  hours_figure(sum(exact_seconds(billing_time)))                      AS billed_hours,
  hours_figure(sum(exact_seconds(coalesce(audio_duration, 0))))       AS audio_hours,
  hours_figure(sum(exact_seconds(coalesce(transcription_time, 0))))   AS transcription_hours
FROM counted_jobs('created', NULL, NULL, NULL, false)
WHERE billable
GROUP BY ALL;

CREATE OR REPLACE VIEW billing_daily AS
SELECT CAST(period AS DATE) AS day, * EXCLUDE (period) FROM billing_figures('day');

CREATE OR REPLACE VIEW billing_monthly AS
SELECT period AS month, * EXCLUDE (period) FROM billing_figures('month');

CREATE OR REPLACE VIEW jobs_by_status AS
SELECT * FROM status_figures(NULL, NULL, NULL, false);

CREATE OR REPLACE VIEW latency_daily AS
SELECT CAST(period AS DATE) AS day, * EXCLUDE (period) FROM latency_figures('day', NULL, NULL, NULL, false);

CREATE OR REPLACE VIEW errors_by_code AS
SELECT * FROM error_figures(NULL, NULL, NULL, false);

-- Jobs and billed hours per detected language and kind (see 100 for the double counting).
CREATE OR REPLACE VIEW languages AS
SELECT
  language,
  kind,
  count(*)                                                    AS jobs,
  hours_figure(sum(exact_seconds(coalesce(billing_time, 0)))) AS billed_hours
FROM (
  SELECT kind, billing_time, unnest(languages) AS language
  FROM counted_jobs('created', NULL, NULL, NULL, false)
  WHERE languages IS NOT NULL
) AS per_language
GROUP BY language, kind;
