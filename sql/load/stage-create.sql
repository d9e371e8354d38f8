-- What the loader keeps on its connection (temp: this connection's), made once when a writer opens
-- the file: the staging table and the shapes DuckDB parses records into.
--
-- Each batch's records are appended to _tsync_items as received, mapped into the tables by
-- classify.sql and insert.sql, and the table is emptied. `doc` is the text DuckDB maps when it must
-- differ from `raw` (a record DuckDB would read otherwise than JSON.parse: src/extract/json-scan.ts
-- `plain`). `part` splits a batch in two halves of about the same bytes, parsed on two threads.
CREATE TEMP TABLE IF NOT EXISTS _tsync_items (
  id           VARCHAR NOT NULL,
  content_hash VARCHAR NOT NULL,
  raw          JSON NOT NULL,
  doc          JSON,
  modules      VARCHAR[] NOT NULL,  -- names of the feature results in `result` (page-records.ts)
  part         INTEGER NOT NULL,
  synced_at    TIMESTAMPTZ NOT NULL
);

-- A list of utterances, typed: the rows of `utterances` and, in each, of `words`.
CREATE OR REPLACE TEMP MACRO tsync_utterances(list) AS json_transform(list, '[{
  "start": "DOUBLE", "end": "DOUBLE", "confidence": "DOUBLE", "channel": "INTEGER",
  "speaker": "INTEGER", "language": "VARCHAR", "text": "VARCHAR",
  "words": [{"word": "VARCHAR", "start": "DOUBLE", "end": "DOUBLE", "confidence": "DOUBLE"}]
}]');

-- A record, typed: the columns of `jobs`, the transcription's utterances, and each member of
-- `result` the load maps (a feature result as JSON; translation entries as their members' JSON, so
-- that the load can keep every member but the utterances). Unknown members are ignored here.
CREATE OR REPLACE TEMP MACRO tsync_record(doc) AS json_transform(doc, '{
  "kind": "VARCHAR", "status": "VARCHAR", "version": "INTEGER", "request_id": "VARCHAR",
  "created_at": "TIMESTAMPTZ", "completed_at": "TIMESTAMPTZ", "error_code": "INTEGER",
  "custom_metadata": "JSON", "post_session_metadata": "JSON", "request_params": "JSON",
  "file": {"id": "VARCHAR", "filename": "VARCHAR", "source": "VARCHAR",
           "audio_duration": "DOUBLE", "number_of_channels": "INTEGER"},
  "result": {
    "metadata": {"audio_duration": "DOUBLE", "billing_time": "DOUBLE",
                 "transcription_time": "DOUBLE", "number_of_distinct_channels": "INTEGER"},
    "transcription": {
      "full_transcript": "VARCHAR", "languages": ["VARCHAR"], "sentences": ["JSON"],
      "utterances": [{
        "start": "DOUBLE", "end": "DOUBLE", "confidence": "DOUBLE", "channel": "INTEGER",
        "speaker": "INTEGER", "language": "VARCHAR", "text": "VARCHAR",
        "words": [{"word": "VARCHAR", "start": "DOUBLE", "end": "DOUBLE", "confidence": "DOUBLE"}]
      }]
    },
    "translation": {"success": "JSON", "is_empty": "JSON", "exec_time": "JSON", "error": "JSON",
                    "results": ["MAP(VARCHAR, JSON)"]},
    "diarization": {"success": "JSON", "is_empty": "JSON", "exec_time": "JSON", "error": "JSON",
                    "results": "JSON"},
    "summarization": "JSON", "moderation": "JSON", "named_entity_recognition": "JSON",
    "sentiment_analysis": "JSON", "chapterization": "JSON", "name_consistency": "JSON",
    "speaker_reidentification": "JSON", "structured_data_extraction": "JSON",
    "audio_to_llm": "JSON", "sentences": "JSON", "display_mode": "JSON", "messages": "JSON"
  }
}');

-- A feature result's wrapper, its fields as JSON: the load takes each only when it has its type.
CREATE OR REPLACE TEMP MACRO tsync_wrapper(value) AS json_transform(value, '{
  "success": "JSON", "is_empty": "JSON", "exec_time": "JSON", "error": "JSON",
  "results": "JSON", "entity": "JSON"
}');

-- The row groups of every table that grows with the history, with their rows and the size under
-- which a group is small: under 256 rows of `jobs` (a row holds the record's `raw`: a back-fill's
-- checkpoints leave groups of hundreds of jobs, not worth rewriting), under 2,048 (one vector) of
-- the others. Read by compact-small-row-groups.sql and merge-small-row-groups.sql
-- (src/load/file/merge-row-groups.ts).
CREATE OR REPLACE TEMP VIEW _tsync_row_groups AS
WITH segments AS (
  SELECT 'jobs' AS t, row_group_id, count FROM pragma_storage_info('jobs') WHERE column_path = '[0]'
  UNION ALL SELECT 'utterances', row_group_id, count FROM pragma_storage_info('utterances') WHERE column_path = '[0]'
  UNION ALL SELECT 'words', row_group_id, count FROM pragma_storage_info('words') WHERE column_path = '[0]'
  UNION ALL SELECT 'module_results', row_group_id, count FROM pragma_storage_info('module_results') WHERE column_path = '[0]'
  UNION ALL SELECT 'sync_runs', row_group_id, count FROM pragma_storage_info('sync_runs') WHERE column_path = '[0]'
),
groups AS (
  SELECT t, row_group_id, sum(count) AS n, CASE t WHEN 'jobs' THEN 256 ELSE 2048 END AS small_rows
  FROM segments GROUP BY t, row_group_id
)
SELECT t, row_group_id, n, small_rows FROM groups;
