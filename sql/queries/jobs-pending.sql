-- Jobs last seen queued or processing, young enough to be re-checked.
SELECT id, strftime(created_at AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%S.%gZ') AS created_at
FROM jobs
WHERE kind = $kind AND status IN ('queued', 'processing') AND deleted_at IS NULL
  AND created_at >= $since::TIMESTAMPTZ AND created_at < $before::TIMESTAMPTZ
ORDER BY created_at
