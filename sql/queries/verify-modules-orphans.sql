-- Module results of no stored job.
SELECT DISTINCT m.job_id AS id FROM module_results m ANTI JOIN jobs j ON j.id = m.job_id
