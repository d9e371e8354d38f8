-- A record that failed validation, kept whole. The same bad record seen again counts up; it is
-- unresolved again, since the service still serves it. A record of an erased job (jobs.erased_at,
-- or erased_quarantine by its id or, without one, by the record's hash) is not kept: its content
-- was erased on request (sql/008_erasures.sql, sql/104_erased_quarantine.sql).
INSERT INTO quarantine (raw_hash, job_id, kind, errors, raw, first_seen_at, last_seen_at, seen_count, resolved_at)
SELECT $raw_hash, $job_id, $kind, $errors::JSON, $raw::JSON, $seen_at::TIMESTAMPTZ, $seen_at::TIMESTAMPTZ, 1, NULL
WHERE NOT EXISTS (SELECT 1 FROM jobs WHERE id = $job_id AND erased_at IS NOT NULL)
  AND NOT EXISTS (SELECT 1 FROM erased_quarantine WHERE job_id = $job_id OR raw_hash = $raw_hash)
ON CONFLICT (raw_hash) DO UPDATE SET
  last_seen_at = excluded.last_seen_at,
  seen_count = quarantine.seen_count + 1,
  errors = excluded.errors,
  resolved_at = NULL
