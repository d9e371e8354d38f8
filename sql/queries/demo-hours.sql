-- Billing from billing_time (seconds), never from audio_duration: identical channels are billed once.
-- Hours are the billing macros' (sql/101), shown to 2 decimals; jobs are the done ones not deleted.
SELECT kind,
       count(*)::INTEGER AS jobs,
       round(hours_figure(sum(exact_seconds(audio_duration))), 2)::DOUBLE AS audio_hours,
       round(hours_figure(sum(exact_seconds(billing_time))), 2)::DOUBLE AS billed_hours
FROM counted_jobs('created', NULL, NULL, NULL, false)
WHERE status = 'done'
GROUP BY kind ORDER BY kind DESC
