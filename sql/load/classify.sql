-- The staged keys (_tsync_keys) against what is stored: one row per record of the batch, whether it
-- is stored, with the same hash, marked deleted or expired, and erased (its content is never
-- loaded again: refresh-erased.sql). The loader counts new, changed (another hash),
-- unchanged and restored records from them and stages the new and changed ones' texts for parsing;
-- restore.sql and replace.sql read the keys again, finish.sql empties them. One query and no table
-- made and dropped for each batch.
-- The stored jobs are read within the batch's created_at window ($from, $until: its records'
-- earliest and latest created_at): the min/max of each row group's created_at skip the rest of the
-- history, so a batch costs about the same at any history (docs/decisions/0008-duckdb-parses-the-pages-javascript-keeps-the-walk.md). A record stored
-- under another created_at is not found here: the loader asks classify-anywhere.sql for those that
-- src/load/stored-ids.ts says may be stored.
-- Parameters (bound): $from, $until  TIMESTAMPTZ, the batch's created_at window, both included.
-- Returns, per staged key: id, stored, same, was_deleted, erased (booleans).
SELECT k.id,
       s.id IS NOT NULL AS stored,
       coalesce(k.content_hash = s.content_hash, false) AS same,
       (s.deleted_at IS NOT NULL OR s.expired_at IS NOT NULL) AS was_deleted,
       s.erased_at IS NOT NULL AS erased
FROM _tsync_keys k
LEFT JOIN (SELECT id, content_hash, deleted_at, expired_at, erased_at FROM jobs
           WHERE created_at BETWEEN $from AND $until AND id IN (SELECT id FROM _tsync_keys)) s USING (id);
