DELETE FROM module_results WHERE job_id IN (SELECT id FROM _replaced_ids)
