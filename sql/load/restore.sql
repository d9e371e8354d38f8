-- Jobs a --full run had marked deleted, seen again unchanged: listed again, nothing else changes.
UPDATE jobs SET deleted_at = NULL, synced_at = b.synced_at
FROM _tsync_batch b
WHERE jobs.id = b.id AND b.was_deleted AND b.content_hash = b.stored_hash;
