-- What the loader keeps on the writer's staging connection (temp: that connection's), made once when
-- a writer opens the file: the shapes DuckDB parses records into; the staging table is made by
-- parse-reset.sql. Statements there run outside the writer's transaction, each committing on its
-- own, so what a batch stages is freed when the batch ends (src/load/loader.ts).
-- A list of utterances, typed: the rows of `utterances` and, in each, of `words`.
CREATE OR REPLACE TEMP MACRO tsync_utterances(list) AS json_transform(list, '[{
  "start": "DOUBLE", "end": "DOUBLE", "confidence": "DOUBLE", "channel": "INTEGER",
  "speaker": "INTEGER", "language": "VARCHAR", "text": "VARCHAR",
  "words": [{"word": "VARCHAR", "start": "DOUBLE", "end": "DOUBLE", "confidence": "DOUBLE"}]
}]');

-- A record, typed: the columns of `jobs`, the transcription's utterances, and each member of
-- `result` the load maps (a feature result as JSON; translation entries as their members' JSON, so
-- that the load can keep every member but the utterances). Unknown members are ignored here.
-- Every path typed here is one the zod schema has, with a compatible type, and `result` has every
-- module of FEATURE_MODULES (src/normalize/records/shapes.ts), as do the lists of modules below,
-- in parse.sql and in rows-module-results.sql: test/unit/normalize/record-contract.test.ts.
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

-- The feature results of `modules` whose names tsync_record does not type (a newer feature), each
-- read from the record by name (a live job's diarization too): a list of {name, value}, empty for
-- most records. parse.sql takes them while it reads the record's text, so that no later statement
-- needs the texts again.
CREATE OR REPLACE TEMP MACRO tsync_other_modules(modules, kind, doc) AS
  list_transform(
    list_filter(modules, name -> name NOT IN ('summarization', 'moderation', 'named_entity_recognition',
      'sentiment_analysis', 'chapterization', 'name_consistency', 'speaker_reidentification',
      'structured_data_extraction', 'audio_to_llm', 'sentences', 'display_mode', 'messages',
      'translation')
      AND NOT (name = 'diarization' AND kind = 'pre-recorded')),
    name -> {'name': name,
             'value': json_extract(doc, '/result/' || replace(replace(name, '~', '~0'), '/', '~1'))});
