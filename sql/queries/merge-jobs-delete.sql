-- The rows merge-jobs-copy.sql copied, deleted where they were (row ids from merge-jobs-batches.sql).
DELETE FROM jobs WHERE rowid IN (SELECT unnest($ids::BIGINT[]))
