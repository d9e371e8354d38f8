-- Jobs older than the retention edge ($before: created_at before it) that the --full walk did not
-- see: the service no longer lists them because they aged past the account's retention. Marked
-- expired, never deleted; a job already marked either way stays as it is.
UPDATE jobs SET expired_at = $now::TIMESTAMPTZ
WHERE kind = $kind AND deleted_at IS NULL AND expired_at IS NULL AND created_at < $before::TIMESTAMPTZ
  AND id NOT IN (SELECT id FROM seen_ids)
