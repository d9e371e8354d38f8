-- transcript-sync tables. A public contract: users write SQL against these names.
-- Append-only: never edit a shipped migration, add the next number instead.
--
-- Times are TIMESTAMPTZ (UTC instants). Durations from the service (start, end, exec_time,
-- audio_duration, billing_time, transcription_time) are stored as the service sends them: seconds,
-- by every public example; the spec does not state the unit.

-- One row per job, as last seen upstream.
CREATE TABLE jobs (
  id                          VARCHAR PRIMARY KEY,
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

-- Utterances of a job. `source` says which list they come from:
--   'transcription'       result.transcription.utterances
--   'translation:<lang>'  result.translation.results[i].utterances, <lang> = the entry's first
--                         language ('translation:<i>' when it has none or repeats another entry's)
--   'diarization'         result.diarization.results
-- No key constraint (it costs 25% of load time); a job's children are replaced whole, so
-- (job_id, source, utterance_idx) stays unique.
CREATE TABLE utterances (
  job_id        VARCHAR NOT NULL,
  source        VARCHAR NOT NULL,
  utterance_idx INTEGER NOT NULL,   -- 0-based position in its list
  start         DOUBLE,             -- seconds from the start of the audio
  "end"         DOUBLE,             -- seconds; quote it: "end" is an SQL keyword
  confidence    DOUBLE,
  channel       INTEGER,
  speaker       INTEGER,
  language      VARCHAR,
  text          VARCHAR
);

-- Words of an utterance; (job_id, source, utterance_idx, word_idx) is unique and joins to utterances.
CREATE TABLE words (
  job_id        VARCHAR NOT NULL,
  source        VARCHAR NOT NULL,
  utterance_idx INTEGER NOT NULL,
  word_idx      INTEGER NOT NULL,   -- 0-based position in the utterance
  word          VARCHAR,
  start         DOUBLE,
  "end"         DOUBLE,
  confidence    DOUBLE
);

-- One row per feature result in `result` (summarization, moderation, named_entity_recognition,
-- sentiment_analysis, chapterization, audio_to_llm, translation, diarization, ...), and one per
-- entry of result.transcription.sentences (module 'transcription.sentences').
CREATE TABLE module_results (
  job_id            VARCHAR NOT NULL,
  module            VARCHAR NOT NULL,
  success           BOOLEAN,
  is_empty          BOOLEAN,
  exec_time         DOUBLE,         -- seconds
  error_status_code INTEGER,
  error_exception   VARCHAR,
  error_message     VARCHAR,
  -- The feature's `results` (`entity` for named_entity_recognition). For translation and
  -- diarization the utterances are left out here: they live in utterances/words.
  results           JSON
);

-- Records that failed validation, kept whole so nothing is lost; `quarantine retry` loads them
-- again from `raw` after an upgrade.
CREATE TABLE quarantine (
  raw_hash      VARCHAR PRIMARY KEY,
  job_id        VARCHAR,            -- when the record has a readable id
  kind          VARCHAR,
  errors        JSON NOT NULL,      -- [{path, message}, ...]
  raw           JSON NOT NULL,
  first_seen_at TIMESTAMPTZ NOT NULL,
  last_seen_at  TIMESTAMPTZ NOT NULL,
  seen_count    INTEGER NOT NULL DEFAULT 1,
  resolved_at   TIMESTAMPTZ         -- set when the job later loaded (by retry or a newer record)
);

-- One row per sync run and kind.
CREATE TABLE sync_runs (
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
  error         VARCHAR,
  PRIMARY KEY (run_id, kind)
);

-- Per-kind checkpoint of the DuckDB checkpoint store, written in the same transaction as the rows
-- it covers. `state` is JSON: {watermark, pending, slice, lastRun}.
CREATE TABLE checkpoints (
  kind       VARCHAR PRIMARY KEY,
  state      JSON NOT NULL,
  updated_at TIMESTAMPTZ NOT NULL
);
