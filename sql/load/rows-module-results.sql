-- The rows of `module_results` of the parsed batch (parse.sql), in the table's columns.
-- A member that is not a wrapped feature result (a live job's `messages`, a feature of another
-- shape) is kept whole in `results`; a wrapper's fields are taken only when they have their type.
-- A name tsync_record does not type (a newer feature) comes from parse.sql's `other_modules`.
-- Returns the columns of `module_results`, in the table's order (appended as they come).
-- The names below, with the two list_contains branches, are FEATURE_MODULES
-- (src/normalize/records/shapes.ts): test/unit/normalize/record-contract.test.ts.
-- Each list is unnested in a select list, beside the job's columns (its created_at among them): a
-- lateral unnest, or a lookup of the job's row, costs a join per batch.
WITH members AS (
  SELECT id AS job_id, created_at, name AS module,
         CASE name
           WHEN 'summarization' THEN summarization
           WHEN 'moderation' THEN moderation
           WHEN 'named_entity_recognition' THEN named_entity_recognition
           WHEN 'sentiment_analysis' THEN sentiment_analysis
           WHEN 'chapterization' THEN chapterization
           WHEN 'name_consistency' THEN name_consistency
           WHEN 'speaker_reidentification' THEN speaker_reidentification
           WHEN 'structured_data_extraction' THEN structured_data_extraction
           WHEN 'audio_to_llm' THEN audio_to_llm
           WHEN 'sentences' THEN sentences
           WHEN 'display_mode' THEN display_mode
           WHEN 'messages' THEN messages
         END AS value
  FROM (SELECT *, unnest(modules) AS name FROM _tsync_src)
  WHERE name IN ('summarization', 'moderation', 'named_entity_recognition', 'sentiment_analysis',
                 'chapterization', 'name_consistency', 'speaker_reidentification',
                 'structured_data_extraction', 'audio_to_llm', 'sentences', 'display_mode', 'messages')
  UNION ALL
  SELECT id, created_at, o.name, o.value
  FROM (SELECT id, created_at, unnest(other_modules) AS o FROM _tsync_src)
  UNION ALL
  SELECT id, created_at, 'transcription.sentences', unnest(transcription.sentences)
  FROM _tsync_src
), wrapped AS (
  SELECT job_id, created_at, module, value, json_type(value) = 'OBJECT' AS wrapper,
         tsync_wrapper(value) AS w
  FROM members
), fields AS (
  SELECT job_id, created_at, module, wrapper, w.success, w.is_empty, w.exec_time, w.error,
         CASE WHEN NOT wrapper THEN value
              -- `entity` as the spec shows it, else `results`, where the service sends the entities.
              WHEN module = 'named_entity_recognition' THEN coalesce(w.entity, w.results)
              ELSE w.results END AS results
  FROM wrapped
  UNION ALL
  SELECT id, created_at, 'translation', true, translation.success, translation.is_empty, translation.exec_time,
         translation.error, translation.results
  FROM _tsync_src WHERE list_contains(modules, 'translation')
  UNION ALL
  SELECT id, created_at, 'diarization', true, diarization.success, diarization.is_empty, diarization.exec_time,
         diarization.error, NULL
  FROM _tsync_src WHERE kind = 'pre-recorded' AND list_contains(modules, 'diarization')
), typed AS (
  SELECT *,
         CASE WHEN wrapper AND json_type(error) = 'OBJECT'
              THEN json_transform(error, '{"status_code":"JSON","exception":"JSON","message":"JSON"}') END AS e
  FROM fields
)
SELECT job_id, module,
       CASE WHEN wrapper AND json_type(success) = 'BOOLEAN' THEN success::BOOLEAN END,
       CASE WHEN wrapper AND json_type(is_empty) = 'BOOLEAN' THEN is_empty::BOOLEAN END,
       CASE WHEN wrapper AND json_type(exec_time) IN ('DOUBLE', 'BIGINT', 'UBIGINT') THEN exec_time::DOUBLE END,
       CASE WHEN json_type(e.status_code) IN ('DOUBLE', 'BIGINT', 'UBIGINT')
             AND e.status_code::DOUBLE = floor(e.status_code::DOUBLE)
             AND abs(e.status_code::DOUBLE) <= 2147483647
            THEN e.status_code::DOUBLE::INTEGER END,
       CASE WHEN json_type(e.exception) = 'VARCHAR' THEN e.exception ->> '$' END,
       CASE WHEN json_type(e.message) = 'VARCHAR' THEN e.message ->> '$' END,
       results, created_at
FROM typed;
