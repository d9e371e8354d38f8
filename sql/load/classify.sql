-- The staged keys (_tsync_keys) against what is stored: one row per record of the batch, whether it
-- is stored, with the same hash, and marked deleted. The loader counts new, changed (another hash),
-- unchanged and restored records from them and stages the new and changed ones' texts for parsing;
-- restore.sql and replace.sql read _tsync_batch.
CREATE OR REPLACE TEMP TABLE _tsync_batch AS
SELECT k.id, k.content_hash, k.synced_at,
       s.id IS NOT NULL AS stored,
       s.content_hash AS stored_hash,
       s.deleted_at IS NOT NULL AS was_deleted
FROM _tsync_keys k
LEFT JOIN (SELECT id, content_hash, deleted_at FROM jobs WHERE id IN (SELECT id FROM _tsync_keys)) s USING (id);
DELETE FROM _tsync_keys;
SELECT id, stored, coalesce(content_hash = stored_hash, false) AS same, was_deleted FROM _tsync_batch;
