-- One batch of merge-jobs-batches.sql appended again to `jobs` (past the table's end, as a row
-- group of its own at the commit); merge-jobs-delete.sql then deletes the rows it copied.
INSERT INTO jobs SELECT * FROM jobs WHERE rowid IN (SELECT unnest($ids::BIGINT[]))
