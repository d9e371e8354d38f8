-- What a --full run would mark deleted (unseen, created before the run), and the kind's stored jobs.
-- Expired jobs (expired_at set) are neither: they left the list by the service's retention.
SELECT count(*) FILTER (WHERE created_at < $before::TIMESTAMPTZ AND id NOT IN (SELECT id FROM seen_ids))::INTEGER AS unseen,
       count(*)::INTEGER AS stored
FROM jobs
WHERE kind = $kind AND deleted_at IS NULL AND expired_at IS NULL
  -- Only the jobs of the judged range (NULL: no lower bound): a --window reconcile's window, never
  -- below the retention edge, where a job no longer listed is expired (seen-mark-expired.sql).
  AND ($after::TIMESTAMPTZ IS NULL OR created_at >= $after::TIMESTAMPTZ)
