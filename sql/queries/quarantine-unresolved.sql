SELECT raw_hash, raw::VARCHAR AS raw FROM quarantine WHERE resolved_at IS NULL ORDER BY first_seen_at, raw_hash
