-- Jobs of the walked range no longer listed. `$after` is NULL for a whole-history reconcile; with
-- --window it is the walk's (inclusive) lower bound: older jobs were not walked, so not judged.
UPDATE jobs SET deleted_at = $now::TIMESTAMPTZ
WHERE kind = $kind AND deleted_at IS NULL AND created_at < $before::TIMESTAMPTZ
  AND ($after::TIMESTAMPTZ IS NULL OR created_at >= $after::TIMESTAMPTZ)
  AND id NOT IN (SELECT id FROM seen_ids)
