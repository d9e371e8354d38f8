-- What a billing report's range holds but cannot count yet. Parameters as in report-billing.sql.
--   pending  jobs still queued or processing: billed once they complete. Such a job has no
--            completion date, so with $date 'completed' it counts when it was created before the
--            end of the range (it may still complete inside it).
--   undated  ($date 'completed' only) done jobs with a billing_time but no completed_at, which a
--            report by completion date cannot place, created before the end of the range.
SELECT
  count(*) FILTER (WHERE status IN ('queued', 'processing'))::INTEGER                   AS pending,
  count(*) FILTER (WHERE $date = 'completed' AND billable AND completed_at IS NULL)::INTEGER AS undated
FROM counted_jobs('created', CASE WHEN $date = 'completed' THEN NULL ELSE $from END, $before, $kind, $include_deleted)
