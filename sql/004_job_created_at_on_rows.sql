-- Each row of utterances, words and module_results carries its job's created_at (`job_created_at`,
-- the value of jobs.created_at when the row was written), so the rows of a given job are found
-- by zone maps (DuckDB's min/max of a column per row group) instead of a scan of the whole table:
-- rows are appended job after job, in the order jobs are loaded, so a row group holds the jobs of
-- a short span of created_at, while job_id (random ids) spans every value in every row group. The
-- loader deletes a changed job's rows by (job_id, job_created_at): at 100,000 jobs one job's words
-- went from a scan of the whole table to a few row groups (docs/decisions/0006-the-files-tables.md).
--
-- Each table is rebuilt as 002_no_keys_on_history.sql rebuilt jobs: a new table with the columns
-- of the old one and job_created_at last, the rows copied in their stored order (the join keeps
-- the order of its left side, but for a row whose job is not stored, which it emits after its
-- vector's other rows: such rows, which `verify` reports, are kept with NULL), the old table
-- dropped and the new one renamed. The runner wraps the file in one
-- transaction with its schema_migrations row: killed mid-way, the file is as it was.

CREATE TEMP TABLE _tsync_job_times AS
SELECT id, min(created_at) AS created_at FROM jobs GROUP BY id;

CREATE TABLE utterances_004 (
  job_id         VARCHAR NOT NULL,
  source         VARCHAR NOT NULL,
  utterance_idx  INTEGER NOT NULL,
  start          DOUBLE,
  "end"          DOUBLE,
  confidence     DOUBLE,
  channel        INTEGER,
  speaker        INTEGER,
  language       VARCHAR,
  text           VARCHAR,
  job_created_at TIMESTAMPTZ        -- its job's created_at
);
INSERT INTO utterances_004
SELECT c.*, t.created_at FROM utterances AS c LEFT JOIN _tsync_job_times AS t ON t.id = c.job_id;
DROP TABLE utterances;
ALTER TABLE utterances_004 RENAME TO utterances;

CREATE TABLE words_004 (
  job_id         VARCHAR NOT NULL,
  source         VARCHAR NOT NULL,
  utterance_idx  INTEGER NOT NULL,
  word_idx       INTEGER NOT NULL,
  word           VARCHAR,
  start          DOUBLE,
  "end"          DOUBLE,
  confidence     DOUBLE,
  job_created_at TIMESTAMPTZ        -- its job's created_at
);
INSERT INTO words_004
SELECT c.*, t.created_at FROM words AS c LEFT JOIN _tsync_job_times AS t ON t.id = c.job_id;
DROP TABLE words;
ALTER TABLE words_004 RENAME TO words;

CREATE TABLE module_results_004 (
  job_id            VARCHAR NOT NULL,
  module            VARCHAR NOT NULL,
  success           BOOLEAN,
  is_empty          BOOLEAN,
  exec_time         DOUBLE,
  error_status_code INTEGER,
  error_exception   VARCHAR,
  error_message     VARCHAR,
  results           JSON,
  job_created_at    TIMESTAMPTZ     -- its job's created_at
);
INSERT INTO module_results_004
SELECT c.*, t.created_at FROM module_results AS c LEFT JOIN _tsync_job_times AS t ON t.id = c.job_id;
DROP TABLE module_results;
ALTER TABLE module_results_004 RENAME TO module_results;

DROP TABLE _tsync_job_times;
