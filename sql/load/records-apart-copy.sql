-- One run of `jobs` (row ids $first to $last, from records-apart-batches.sql): its records appended
-- to job_records, in stored order.
-- Parameters (bound): $first, $last  BIGINT row ids of `jobs`, both included.
-- Returns nothing.
INSERT INTO job_records SELECT id, created_at, raw FROM jobs WHERE rowid BETWEEN $first AND $last
