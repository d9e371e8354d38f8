UPDATE jobs SET deleted_at = $now::TIMESTAMPTZ
WHERE kind = $kind AND deleted_at IS NULL AND created_at < $before::TIMESTAMPTZ
  AND id NOT IN (SELECT id FROM seen_ids)
