-- Jobs last seen queued or processing, young enough to be re-checked, each with its place
-- (1-based) among the kind's listed jobs of [since, before) by created_at. Jobs marked deleted or
-- expired are not listed any more: neither re-checked nor counted.
SELECT id, strftime(created_at AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%S.%gZ') AS created_at, position
FROM (
  SELECT id, created_at, status, (row_number() OVER (ORDER BY created_at, id))::INTEGER AS position
  FROM jobs
  WHERE kind = $kind AND deleted_at IS NULL AND expired_at IS NULL
    AND created_at >= $since::TIMESTAMPTZ AND created_at < $before::TIMESTAMPTZ
)
WHERE status IN ('queued', 'processing')
ORDER BY created_at
