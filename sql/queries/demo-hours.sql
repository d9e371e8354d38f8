-- Billing from billing_time (seconds), never from audio_duration: identical channels are billed once.
SELECT kind,
       count(*)::INTEGER AS jobs,
       round(sum(audio_duration) / 3600, 2)::DOUBLE AS audio_hours,
       round(sum(billing_time) / 3600, 2)::DOUBLE AS billed_hours
FROM jobs WHERE deleted_at IS NULL AND status = 'done'
GROUP BY kind ORDER BY kind DESC
