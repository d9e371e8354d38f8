SELECT raw_hash, job_id, kind, errors::VARCHAR AS errors, raw::VARCHAR AS raw,
       first_seen_at, last_seen_at, seen_count, resolved_at
FROM quarantine
WHERE $include_resolved OR resolved_at IS NULL
ORDER BY last_seen_at DESC, raw_hash
