-- Jobs without exactly one record in job_records (the loader writes a job's row and its record in
-- one transaction). Reads job_records' ids, not its `raw`.
SELECT j.id FROM jobs j
LEFT JOIN (SELECT job_id, count(*) AS n FROM job_records GROUP BY job_id) r ON r.job_id = j.id
WHERE r.n IS DISTINCT FROM 1
