-- Jobs that loaded: their quarantined records are resolved.
UPDATE quarantine SET resolved_at = $resolved_at::TIMESTAMPTZ
WHERE resolved_at IS NULL AND job_id IN (SELECT unnest($ids::VARCHAR[]))
