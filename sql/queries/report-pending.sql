-- Jobs of a report's range still queued or processing: billed once they complete, not counted yet.
-- Such a job has no completion date, so with $date 'completed' it counts when it was created
-- before the end of the range (it may still complete inside it). Parameters as in report-billing.sql.
SELECT count(*)::INTEGER AS n
FROM report_jobs('created', CASE WHEN $date = 'completed' THEN NULL ELSE $from END, $before, $kind, $include_deleted)
WHERE status IN ('queued', 'processing')
