-- The new and changed records of the batch (staged in _tsync_items, parse-create.sql), parsed into
-- the rows of jobs, utterances, words and module_results: on the staging connection, outside the
-- writer's transaction. Each record is parsed once, and the translation and diarization utterances,
-- taken as JSON text there, once more; the rows-*.sql queries reshape the typed rows in the columns
-- of each table, which the loader appends in the writer's transaction (src/load/loader.ts). The last
-- statement counts the child rows.
-- Parameters: none. Returns, from its last statement, one row: utterances, words  BIGINT, the
-- child rows parsed.
-- Records here passed validation (src/normalize), so each value has its documented type.
--
-- What goes where (sql/001_tables.sql): utterances and words from result.transcription, from each
-- entry of result.translation.results (source 'translation:<first language>', or 'translation:<i>'
-- when it has none or an earlier entry took it) and, for a pre-recorded job, result.diarization;
-- one module_results row per feature result (each name of `modules`) and transcription sentence.
CREATE OR REPLACE TEMP TABLE _tsync_src AS
WITH parsed AS (
  -- The two halves of the batch (`part`): a statement over a few rows runs on one thread, each
  -- branch of a UNION ALL on a thread of its own.
  SELECT id, content_hash, modules, synced_at, coalesce(doc, raw) AS doc,
         tsync_record(coalesce(doc, raw)) AS r
  FROM _tsync_items WHERE part = 0
  UNION ALL
  SELECT id, content_hash, modules, synced_at, coalesce(doc, raw) AS doc,
         tsync_record(coalesce(doc, raw)) AS r
  FROM _tsync_items WHERE part = 1
)
SELECT id, content_hash, modules, synced_at, tsync_other_modules(modules, r.kind, doc) AS other_modules,
       r.kind, r.status, r.version, r.request_id, r.created_at, r.completed_at, r.error_code,
       r.custom_metadata, r.post_session_metadata, r.request_params, r.file, r.result.metadata,
       r.result.transcription,
       list_transform(r.result.translation.results,
         e -> {'lang': json_transform(e['languages'], '["VARCHAR"]')[1],
               'utterances': tsync_utterances(e['utterances'])}) AS translations,
       CASE WHEN r.kind = 'pre-recorded' THEN tsync_utterances(r.result.diarization.results) END
         AS diarization_utterances,
       {'success': r.result.translation.success, 'is_empty': r.result.translation.is_empty,
        'exec_time': r.result.translation.exec_time, 'error': r.result.translation.error,
        -- Each entry without its utterances, which go to utterances and words.
        'results': to_json(list_transform(r.result.translation.results,
                     e -> map_from_entries(list_filter(map_entries(e), m -> m.key <> 'utterances'))))
       } AS translation,
       {'success': r.result.diarization.success, 'is_empty': r.result.diarization.is_empty,
        'exec_time': r.result.diarization.exec_time, 'error': r.result.diarization.error,
        'results': r.result.diarization.results} AS diarization,
       r.result.summarization, r.result.moderation, r.result.named_entity_recognition,
       r.result.sentiment_analysis, r.result.chapterization, r.result.name_consistency,
       r.result.speaker_reidentification, r.result.structured_data_extraction, r.result.audio_to_llm,
       r.result.sentences, r.result.display_mode, r.result.messages
FROM parsed;

CREATE OR REPLACE TEMP TABLE _tsync_utterances AS
WITH entries AS (
  -- A translation entry is named by its language when no earlier entry of its job has it: the
  -- first position of that language in the job's list of them (a list function, not a window over
  -- the entries, which would sort them with their utterances).
  -- Each list unnested in the select list, not joined laterally, which costs a join per job.
  SELECT id, created_at, i, e.lang, e.utterances, list_position(langs, e.lang) AS first_of_lang
  FROM (SELECT id, created_at, list_transform(translations, t -> t.lang) AS langs,
               unnest(translations) AS e, generate_subscripts(translations, 1) AS i
        FROM _tsync_src)
), lists AS (
  SELECT id AS job_id, created_at, 'transcription' AS source, transcription.utterances AS us FROM _tsync_src
  UNION ALL
  SELECT id, created_at,
         CASE WHEN lang <> '' AND first_of_lang = i
              THEN 'translation:' || lang ELSE 'translation:' || (i - 1) END,
         utterances
  FROM entries
  UNION ALL
  SELECT id, created_at, 'diarization', diarization_utterances FROM _tsync_src
)
SELECT job_id, created_at AS job_created_at, source, generate_subscripts(us, 1) - 1 AS utterance_idx,
       unnest(us) AS u
FROM lists
WHERE us IS NOT NULL;

SELECT count(*) AS utterances, coalesce(sum(len(u.words)), 0) AS words FROM _tsync_utterances;
