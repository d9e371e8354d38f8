-- The staged keys (_tsync_keys) against what is stored: one row per record of the batch, whether it
-- is stored, with the same hash, and marked deleted. The loader counts new, changed (another hash),
-- unchanged and restored records from them and stages the new and changed ones' texts for parsing;
-- restore.sql and replace.sql read the keys again, finish.sql empties them. One query and no table
-- made and dropped for each batch (6-8 against 9-10 ms of CPU a batch of 22 at 20,000 jobs).
SELECT k.id,
       s.id IS NOT NULL AS stored,
       coalesce(k.content_hash = s.content_hash, false) AS same,
       s.deleted_at IS NOT NULL AS was_deleted
FROM _tsync_keys k
LEFT JOIN (SELECT id, content_hash, deleted_at FROM jobs WHERE id IN (SELECT id FROM _tsync_keys)) s USING (id);
