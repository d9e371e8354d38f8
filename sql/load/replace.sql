-- Stored jobs whose record changed: their row, their record and all their children go, the loader writes
-- them anew in the same transaction. An erased job stays (refresh-erased.sql updates its billing facts).
-- A job's rows are found by (id, created_at) and their rows by (job_id, job_created_at): the
-- created_at values let DuckDB skip every row group whose min/max excludes them, where ids are
-- spread over all of them (sql/004_job_created_at_on_rows.sql).
CREATE OR REPLACE TEMP TABLE _tsync_replaced AS
SELECT k.id, j.created_at FROM _tsync_keys k JOIN jobs j USING (id)
WHERE j.content_hash <> k.content_hash AND j.erased_at IS NULL;
DELETE FROM jobs USING _tsync_replaced r WHERE jobs.id = r.id AND jobs.created_at = r.created_at;
DELETE FROM job_records USING _tsync_replaced r
WHERE job_records.job_id = r.id AND job_records.job_created_at = r.created_at;
DELETE FROM utterances USING _tsync_replaced r
WHERE utterances.job_id = r.id AND utterances.job_created_at = r.created_at;
DELETE FROM words USING _tsync_replaced r WHERE words.job_id = r.id AND words.job_created_at = r.created_at;
DELETE FROM module_results USING _tsync_replaced r
WHERE module_results.job_id = r.id AND module_results.job_created_at = r.created_at;
