UPDATE quarantine SET resolved_at = $resolved_at::TIMESTAMPTZ
WHERE resolved_at IS NULL AND raw_hash IN (SELECT unnest($hashes::VARCHAR[]))
