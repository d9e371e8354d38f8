-- Utterances of no stored job (by job_id).
SELECT DISTINCT u.job_id AS id FROM utterances u ANTI JOIN jobs j ON j.id = u.job_id
