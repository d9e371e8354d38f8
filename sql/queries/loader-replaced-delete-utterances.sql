DELETE FROM utterances WHERE job_id IN (SELECT id FROM _replaced_ids)
