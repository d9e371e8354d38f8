-- One batch of merge-records-batches.sql appended again to `job_records` (past the table's end, as
-- a row group of its own at the commit); merge-records-delete.sql then deletes the rows it copied.
INSERT INTO job_records SELECT * FROM job_records WHERE rowid IN (SELECT unnest($ids::BIGINT[]))
