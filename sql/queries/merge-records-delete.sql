-- The rows merge-records-copy.sql copied, deleted where they were (row ids from
-- merge-records-batches.sql).
DELETE FROM job_records WHERE rowid IN (SELECT unnest($ids::BIGINT[]))
