-- The content of the jobs of _tsync_erase not erased yet (erase-select.sql) goes: the record as
-- received, utterances, words, module results, and any quarantined record of the same job (or the
-- record itself, for one without a readable id). Run in the erasure's transaction, before
-- erase-jobs.sql and erase-quarantined.sql. By job id (or record hash) alone, so rows of any
-- created_at go.
DELETE FROM job_records WHERE job_id IN (SELECT id FROM _tsync_erase WHERE NOT erased);
DELETE FROM utterances WHERE job_id IN (SELECT id FROM _tsync_erase WHERE NOT erased);
DELETE FROM words WHERE job_id IN (SELECT id FROM _tsync_erase WHERE NOT erased);
DELETE FROM module_results WHERE job_id IN (SELECT id FROM _tsync_erase WHERE NOT erased);
DELETE FROM quarantine WHERE job_id IN (SELECT id FROM _tsync_erase WHERE NOT erased)
                          OR raw_hash IN (SELECT raw_hash FROM _tsync_erase WHERE NOT erased);
