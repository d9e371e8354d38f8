-- Jobs without exactly one record in job_records (the loader writes a job's row and its record in
-- one transaction), or erased (erased_at set) and still holding one. Reads job_records' ids, not
-- its `raw`.
SELECT j.id FROM jobs j
LEFT JOIN (SELECT job_id, count(*) AS n FROM job_records GROUP BY job_id) r ON r.job_id = j.id
WHERE r.n IS DISTINCT FROM (CASE WHEN j.erased_at IS NULL THEN 1 END)
