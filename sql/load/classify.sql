-- The staged records against what is stored: new, changed (another hash), unchanged, and which were
-- marked deleted. The counts are the batch's result; the later statements read _tsync_batch.
CREATE OR REPLACE TEMP TABLE _tsync_batch AS
SELECT i.id, i.content_hash, i.raw, i.doc, i.modules, i.part, i.synced_at,
       s.id IS NOT NULL AS stored,
       s.content_hash AS stored_hash,
       s.deleted_at IS NOT NULL AS was_deleted
FROM _tsync_items i
LEFT JOIN (SELECT id, content_hash, deleted_at FROM jobs WHERE id IN (SELECT id FROM _tsync_items)) s USING (id);
DELETE FROM _tsync_items;
SELECT
  count(*) FILTER (WHERE NOT stored) AS inserted,
  count(*) FILTER (WHERE stored AND content_hash <> stored_hash) AS updated,
  count(*) FILTER (WHERE stored AND content_hash = stored_hash) AS unchanged,
  count(*) FILTER (WHERE was_deleted) AS restored,
  count(*) FILTER (WHERE was_deleted AND content_hash = stored_hash) AS restored_unchanged
FROM _tsync_batch;
