-- The rows of `job_records` of the parsed batch (parse.sql): each record's text as received, from
-- _tsync_items, with its job's created_at.
SELECT s.id, s.created_at, i.raw
FROM _tsync_src s JOIN _tsync_items i ON i.id = s.id;
