-- Jobs a --full run had marked deleted or expired, seen again unchanged: listed again, nothing else changes.
UPDATE jobs SET deleted_at = NULL, expired_at = NULL, synced_at = k.synced_at
FROM _tsync_keys k
WHERE jobs.id = k.id AND (jobs.deleted_at IS NOT NULL OR jobs.expired_at IS NOT NULL)
  AND jobs.content_hash = k.content_hash;
