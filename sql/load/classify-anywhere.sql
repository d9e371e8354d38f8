-- Stored jobs of the batch's records $ids, whatever their created_at: the records classify.sql did
-- not find in the batch's window and whose ids may be stored (src/load/stored-ids.ts). It reads every
-- stored id, so the loader asks it only for those.
-- Parameters (bound): $ids  VARCHAR[], the ids to look up.
-- Returns, per stored job of $ids: id, same, was_deleted, erased (booleans).
SELECT j.id,
       coalesce(k.content_hash = j.content_hash, false) AS same,
       (j.deleted_at IS NOT NULL OR j.expired_at IS NOT NULL) AS was_deleted,
       j.erased_at IS NOT NULL AS erased
FROM jobs j JOIN _tsync_keys k USING (id)
WHERE list_contains($ids, j.id);
