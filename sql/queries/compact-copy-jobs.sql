-- One run of `jobs` (row ids $first to $last, from compact-job-batches.sql) appended to the copy
-- `compact` writes (attached as tsync_compacted, src/load/file/rewrite-file.ts), in stored order.
INSERT INTO tsync_compacted.jobs SELECT * FROM jobs WHERE rowid BETWEEN $first AND $last
