-- Tables that grow with the history carry no index (docs/decisions/0006-the-files-tables.md): `jobs` loses its PRIMARY KEY and
-- `sync_runs` its (run_id, kind) key. DuckDB appends rows inserted into a table already written to
-- the file as a new row group, so a checkpoint writes only the new rows; a table with an index
-- (PRIMARY KEY, UNIQUE) instead gets its whole last row group (up to 122,880 rows, every job's
-- `raw` included) rewritten at each checkpoint: 167 MB written for one new job at 3,000 jobs.
--
-- Uniqueness stays: the loader is the only writer of `jobs` and replaces a job set-based (its old
-- row and children deleted, the new ones appended, in one transaction); `sync_runs` gets one row
-- per random run id and kind. `transcript-sync verify` checks both, and every other invariant.
-- Small tables keep their keys: `checkpoints` (one row per kind), `quarantine` (one row per
-- distinct invalid record; its upsert needs the key) and `schema_migrations`.
--
-- DuckDB cannot drop a PRIMARY KEY with ALTER TABLE, so each table is rebuilt: a new table with
-- the same columns (same names, types, order, NOT NULL) but no key, the rows copied in their
-- order, the old table dropped and the new one renamed. The migration runner wraps this file in
-- one transaction with its schema_migrations row: killed mid-way, the file is as it was, and the
-- next writable open runs it again. Views (100_analytics_views.sql) bind tables by name, so they
-- read the new tables unchanged.

CREATE TABLE jobs_002 (
  id                          VARCHAR NOT NULL,      -- unique: kept by the loader, checked by `verify`
  kind                        VARCHAR NOT NULL,      -- 'pre-recorded' | 'live'
  status                      VARCHAR NOT NULL,      -- 'queued' | 'processing' | 'done' | 'error'
  version                     INTEGER,
  request_id                  VARCHAR,
  created_at                  TIMESTAMPTZ NOT NULL,
  completed_at                TIMESTAMPTZ,
  error_code                  INTEGER,
  custom_metadata             JSON,
  post_session_metadata       JSON,
  request_params              JSON,
  -- file (NULL when the record has no file)
  file_id                     VARCHAR,
  filename                    VARCHAR,
  file_source                 VARCHAR,
  file_audio_duration         DOUBLE,                -- seconds, as measured on the uploaded file
  number_of_channels          INTEGER,
  -- result.metadata (NULL until the job is done)
  audio_duration              DOUBLE,                -- seconds
  billing_time                DOUBLE,                -- seconds billed: bill from this, not audio_duration
  transcription_time          DOUBLE,                -- seconds
  number_of_distinct_channels INTEGER,
  -- result.transcription
  full_transcript             VARCHAR,
  languages                   VARCHAR[],
  raw                         JSON NOT NULL,         -- the record exactly as received
  content_hash                VARCHAR NOT NULL,      -- of `raw`; an identical record writes nothing
  synced_at                   TIMESTAMPTZ NOT NULL,  -- when this row was last written
  deleted_at                  TIMESTAMPTZ            -- set when a --full run no longer finds the job
);
INSERT INTO jobs_002 SELECT * FROM jobs;
DROP TABLE jobs;
ALTER TABLE jobs_002 RENAME TO jobs;

CREATE TABLE sync_runs_002 (
  run_id        VARCHAR NOT NULL,
  kind          VARCHAR NOT NULL,
  mode          VARCHAR NOT NULL,   -- 'incremental' | 'full'
  window_after  TIMESTAMPTZ,        -- NULL: no lower bound
  window_before TIMESTAMPTZ NOT NULL,
  pages         INTEGER NOT NULL DEFAULT 0,
  requests      INTEGER NOT NULL DEFAULT 0,
  retries       INTEGER NOT NULL DEFAULT 0,
  jobs_fetched  INTEGER NOT NULL DEFAULT 0,
  inserted      INTEGER NOT NULL DEFAULT 0,
  updated       INTEGER NOT NULL DEFAULT 0,
  unchanged     INTEGER NOT NULL DEFAULT 0,
  quarantined   INTEGER NOT NULL DEFAULT 0,
  deleted       INTEGER NOT NULL DEFAULT 0,
  restored      INTEGER NOT NULL DEFAULT 0,
  started_at    TIMESTAMPTZ NOT NULL,
  finished_at   TIMESTAMPTZ,
  outcome       VARCHAR NOT NULL,   -- 'running' | 'ok' | 'failed' | 'interrupted'
  error         VARCHAR
);
INSERT INTO sync_runs_002 SELECT * FROM sync_runs;
DROP TABLE sync_runs;
ALTER TABLE sync_runs_002 RENAME TO sync_runs;
