-- The rows of `job_records` of the parsed batch (parse.sql): each record's text as received, from
-- _tsync_items, with its job's created_at.
-- Returns the columns of `job_records`, in the table's order (appended as they come).
SELECT s.id, s.created_at, i.raw
FROM _tsync_src s JOIN _tsync_items i ON i.id = s.id;
