DELETE FROM words WHERE job_id IN (SELECT id FROM _replaced_ids)
