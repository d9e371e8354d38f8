-- Jobs of the judged range no longer listed. `$after` is its (inclusive) lower bound, NULL for none:
-- the walk's start or the retention edge, whichever is later (src/sync/reconcile.ts); older jobs
-- were not walked, or are expired, so not judged here. An expired job stays expired.
UPDATE jobs SET deleted_at = $now::TIMESTAMPTZ
WHERE kind = $kind AND deleted_at IS NULL AND expired_at IS NULL AND created_at < $before::TIMESTAMPTZ
  AND ($after::TIMESTAMPTZ IS NULL OR created_at >= $after::TIMESTAMPTZ)
  AND id NOT IN (SELECT id FROM seen_ids)
