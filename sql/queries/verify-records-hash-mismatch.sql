-- Jobs whose record (job_records.raw) is no longer the text that was hashed on arrival
-- (jobs.content_hash = sha1 of raw). Each raw is hashed as it is read, so the join holds
-- (id, hash) pairs, not the records. A job without a record is verify-records-per-job.sql's.
WITH hashed AS MATERIALIZED (SELECT job_id, sha1(raw::VARCHAR) AS h FROM job_records)
SELECT DISTINCT j.id FROM jobs j JOIN hashed r ON r.job_id = j.id
WHERE j.content_hash <> r.h
