-- Jobs that aged out of the list: created before the retention's expiry line ($before) and not seen
-- by the --full walk, where the walk could have seen them (from $after, NULL: no lower bound) or
-- where the service lists nothing any more (before $horizon). A job of neither range (past the
-- horizon, not walked by a --window reconcile) is not judged. Marked expired, never deleted; a job
-- already marked either way stays as it is.
UPDATE jobs SET expired_at = $now::TIMESTAMPTZ
WHERE kind = $kind AND deleted_at IS NULL AND expired_at IS NULL AND created_at < $before::TIMESTAMPTZ
  AND (created_at < $horizon::TIMESTAMPTZ OR $after::TIMESTAMPTZ IS NULL OR created_at >= $after::TIMESTAMPTZ)
  AND id NOT IN (SELECT id FROM seen_ids)
