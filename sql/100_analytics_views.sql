-- Analytics views over the mirrored jobs. A public contract like 001_tables.sql: append-only, a
-- change is a new migration that replaces a view (CREATE OR REPLACE VIEW).
--
-- Periods are UTC calendar days and months of a job's created_at, taken with AT TIME ZONE 'UTC'
-- so that the session's TimeZone setting never moves a job to another day: a job created at
-- 23:59:59.999Z lands in its own day. Hours are seconds / 3600. Sums of seconds are taken as
-- DECIMAL(18,6) so that they are exact and do not depend on the order DuckDB adds rows in (a
-- scheduled report compares figures to decide whether to rewrite a file).
--
-- Jobs that a --full sync no longer found upstream (deleted_at set) are left out of every view
-- except job_facts, which keeps them with is_deleted = true for the reports' --include-deleted.

-- One row per job, deleted ones included, with the UTC period columns and derived durations.
CREATE OR REPLACE VIEW job_facts AS
SELECT
  j.id,
  j.kind,
  j.status,
  j.created_at,
  j.completed_at,
  CAST(j.created_at AT TIME ZONE 'UTC' AS DATE)                 AS day,
  strftime(j.created_at AT TIME ZONE 'UTC', '%Y-%m')            AS month,
  j.error_code,
  j.billing_time,
  j.audio_duration,
  j.transcription_time,
  j.languages,
  -- seconds from creation to completion, NULL until the job completes
  (epoch_ms(j.completed_at) - epoch_ms(j.created_at)) / 1000.0  AS latency_seconds,
  -- what billing counts: done jobs that carry result.metadata.billing_time
  (j.status = 'done' AND j.billing_time IS NOT NULL)            AS billable,
  j.deleted_at,
  (j.deleted_at IS NOT NULL)                                    AS is_deleted
FROM jobs AS j;

-- Billed jobs per UTC day and kind.
CREATE OR REPLACE VIEW billing_daily AS
SELECT
  day,
  kind,
  count(*)                                                            AS jobs,
  round(sum(CAST(billing_time AS DECIMAL(18, 6))) / 3600, 6)          AS billed_hours,
  round(sum(CAST(coalesce(audio_duration, 0) AS DECIMAL(18, 6))) / 3600, 6)     AS audio_hours,
  round(sum(CAST(coalesce(transcription_time, 0) AS DECIMAL(18, 6))) / 3600, 6) AS transcription_hours
FROM job_facts
WHERE billable AND NOT is_deleted
GROUP BY day, kind;

-- Billed jobs per UTC month ('YYYY-MM') and kind.
CREATE OR REPLACE VIEW billing_monthly AS
SELECT
  month,
  kind,
  count(*)                                                            AS jobs,
  round(sum(CAST(billing_time AS DECIMAL(18, 6))) / 3600, 6)          AS billed_hours,
  round(sum(CAST(coalesce(audio_duration, 0) AS DECIMAL(18, 6))) / 3600, 6)     AS audio_hours,
  round(sum(CAST(coalesce(transcription_time, 0) AS DECIMAL(18, 6))) / 3600, 6) AS transcription_hours
FROM job_facts
WHERE billable AND NOT is_deleted
GROUP BY month, kind;

-- How many jobs are in each status, per kind.
CREATE OR REPLACE VIEW jobs_by_status AS
SELECT kind, status, count(*) AS jobs
FROM job_facts
WHERE NOT is_deleted
GROUP BY kind, status;

-- Seconds from created_at to completed_at of done jobs, per UTC day and kind.
CREATE OR REPLACE VIEW latency_daily AS
SELECT
  day,
  kind,
  count(*)                                          AS jobs,
  round(quantile_cont(latency_seconds, 0.5), 3)     AS p50_seconds,
  round(quantile_cont(latency_seconds, 0.9), 3)     AS p90_seconds,
  round(quantile_cont(latency_seconds, 0.99), 3)    AS p99_seconds,
  round(max(latency_seconds), 3)                    AS max_seconds
FROM job_facts
WHERE status = 'done' AND latency_seconds IS NOT NULL AND NOT is_deleted
GROUP BY day, kind;

-- Failed jobs per error_code (NULL when the service sent none) and kind.
CREATE OR REPLACE VIEW errors_by_code AS
SELECT
  error_code,
  kind,
  count(*)         AS jobs,
  min(created_at)  AS first_created_at,
  max(created_at)  AS last_created_at
FROM job_facts
WHERE status = 'error' AND NOT is_deleted
GROUP BY error_code, kind;

-- Jobs and billed hours per detected language (result.transcription.languages) and kind. A job
-- with two languages counts once under each, so the column totals exceed the job count.
CREATE OR REPLACE VIEW languages AS
SELECT
  language,
  kind,
  count(*)                                                                AS jobs,
  round(sum(CAST(coalesce(billing_time, 0) AS DECIMAL(18, 6))) / 3600, 6) AS billed_hours
FROM (
  SELECT kind, billing_time, unnest(languages) AS language
  FROM job_facts
  WHERE NOT is_deleted AND languages IS NOT NULL
) AS per_language
GROUP BY language, kind;

-- Case-insensitive substring search over utterance text, e.g.
--   SELECT * FROM transcript_search('refund') WHERE source = 'transcription'
-- The argument is matched literally: % and _ in it are escaped rather than treated as wildcards.
CREATE OR REPLACE MACRO transcript_search(needle, include_deleted := false) AS TABLE
SELECT
  u.job_id,
  f.kind,
  f.created_at,
  u.source,
  u.utterance_idx,
  u.start,
  u."end",
  u.speaker,
  u.language,
  u.text
FROM utterances AS u
JOIN job_facts AS f ON f.id = u.job_id
WHERE u.text ILIKE '%' || replace(replace(replace(needle, '\', '\\'), '%', '\%'), '_', '\_') || '%' ESCAPE '\'
  AND (include_deleted OR NOT f.is_deleted)
ORDER BY f.created_at, u.job_id, u.source, u.utterance_idx;
