-- Jobs a --full run had marked deleted, seen again unchanged.
UPDATE jobs SET deleted_at = NULL, synced_at = $synced_at::TIMESTAMPTZ
WHERE id IN (SELECT unnest($ids::VARCHAR[])) AND deleted_at IS NOT NULL
