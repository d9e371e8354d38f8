-- The record exactly as received gets a table of its own, `job_records` (docs/decisions/0006-the-files-tables.md): one
-- row per job. A writer's commit holds and writes in proportion to the row groups the history
-- tables hold, and `jobs` kept one small row group per back-fill commit for its `raw` (a vector of
-- a row group's `raw` is decompressed at once, so those groups stay small: docs/decisions/0007-small-row-groups-merged-by-moving-rows.md).
-- Apart, `jobs` is narrow and its row groups merge like the other tables'
-- (src/store/file/merge-row-groups.ts), and only `job_records` keeps a group per commit, of three
-- columns instead of twenty-six.
--
-- `job_created_at` is its job's created_at, as on the child tables
-- (sql/004_job_created_at_on_rows.sql), so the loader finds a changed job's record by zone maps.
-- Migration 006 moves the records stored in jobs.raw here.
CREATE TABLE job_records (
  job_id         VARCHAR NOT NULL,      -- jobs.id
  job_created_at TIMESTAMPTZ NOT NULL,  -- its job's created_at
  raw            JSON NOT NULL          -- the record exactly as received; jobs.content_hash is its sha1
);
