-- Records of no stored job (by job_id).
SELECT DISTINCT r.job_id AS id FROM job_records r ANTI JOIN jobs j ON j.id = r.job_id
