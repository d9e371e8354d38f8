-- What a --full run would mark deleted (unseen, created before the run), and the kind's stored jobs.
SELECT count(*) FILTER (WHERE created_at < $before::TIMESTAMPTZ AND id NOT IN (SELECT id FROM seen_ids))::INTEGER AS unseen,
       count(*)::INTEGER AS stored
FROM jobs
WHERE kind = $kind AND deleted_at IS NULL
  -- A --window reconcile judges only the jobs of its window (NULL: the whole history).
  AND ($after::TIMESTAMPTZ IS NULL OR created_at >= $after::TIMESTAMPTZ)
