-- The jobs of _tsync_erase known only by the quarantine and not erased yet leave one
-- erased_quarantine row each, at $now, without content (sql/104_erased_quarantine.sql). Run in the
-- erasure's transaction with erase-content.sql. Returns the jobs erased (`Count`).
INSERT INTO erased_quarantine (job_id, raw_hash, kind, erased_at)
SELECT id, raw_hash, kind, $now::TIMESTAMPTZ FROM _tsync_erase WHERE quarantine_only AND NOT erased
