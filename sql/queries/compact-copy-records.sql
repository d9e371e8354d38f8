-- One run of `job_records` (row ids $first to $last, from compact-job-batches.sql) appended to
-- the copy `compact` writes (attached as tsync_compacted, src/store/file/rewrite-file.ts), in stored
-- order.
INSERT INTO tsync_compacted.job_records SELECT * FROM job_records WHERE rowid BETWEEN $first AND $last
