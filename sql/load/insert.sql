-- The new and changed records of the batch (_tsync_batch, classify.sql) into jobs, utterances,
-- words and module_results, with the shapes of stage-create.sql. The records are parsed in the first
-- statement: each once, and the translation and diarization utterances, taken as JSON text there,
-- once more. The statements after it reshape typed rows.
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
  SELECT id, content_hash, raw, doc, modules, synced_at, tsync_record(coalesce(doc, raw)) AS r
  FROM _tsync_batch WHERE (NOT stored OR content_hash <> stored_hash) AND part = 0
  UNION ALL
  SELECT id, content_hash, raw, doc, modules, synced_at, tsync_record(coalesce(doc, raw)) AS r
  FROM _tsync_batch WHERE (NOT stored OR content_hash <> stored_hash) AND part = 1
)
SELECT id, content_hash, raw, doc, modules, synced_at,
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

INSERT INTO jobs
SELECT id, kind, status, version, request_id, created_at, completed_at, error_code,
       custom_metadata, post_session_metadata, request_params,
       file.id, file.filename, file.source, file.audio_duration, file.number_of_channels,
       metadata.audio_duration, metadata.billing_time, metadata.transcription_time,
       metadata.number_of_distinct_channels, transcription.full_transcript, transcription.languages,
       raw, content_hash, synced_at, NULL
FROM _tsync_src;

CREATE OR REPLACE TEMP TABLE _tsync_utterances AS
WITH entries AS (
  SELECT id, i, e.lang, e.utterances
  FROM _tsync_src, unnest(translations) WITH ORDINALITY AS x(e, i)
), lists AS (
  SELECT id AS job_id, 'transcription' AS source, transcription.utterances AS us FROM _tsync_src
  UNION ALL
  SELECT id,
         CASE WHEN lang <> '' AND row_number() OVER (PARTITION BY id, lang ORDER BY i) = 1
              THEN 'translation:' || lang ELSE 'translation:' || (i - 1) END,
         utterances
  FROM entries
  UNION ALL
  SELECT id, 'diarization', diarization_utterances FROM _tsync_src
)
SELECT job_id, source, generate_subscripts(us, 1) - 1 AS utterance_idx, unnest(us) AS u
FROM lists
WHERE us IS NOT NULL;

INSERT INTO utterances
SELECT job_id, source, utterance_idx, u.start, u."end", u.confidence, u.channel, u.speaker, u.language, u.text
FROM _tsync_utterances;

-- One unnest of each word list, its fields taken outside: faster than an unnest per field.
INSERT INTO words
SELECT job_id, source, utterance_idx, word_idx, w.word, w.start, w."end", w.confidence
FROM (
  SELECT job_id, source, utterance_idx, generate_subscripts(u.words, 1) - 1 AS word_idx, unnest(u.words) AS w
  FROM _tsync_utterances
);

-- A member that is not a wrapped feature result (a live job's `messages`, a feature of another
-- shape) is kept whole in `results`; a wrapper's fields are taken only when they have their type.
-- A name the structure above does not know (a newer feature) is read from the record by name.
INSERT INTO module_results
WITH members AS (
  SELECT id AS job_id, name AS module,
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
           ELSE json_extract(coalesce(doc, raw), '/result/' || replace(replace(name, '~', '~0'), '/', '~1'))
         END AS value
  FROM _tsync_src, unnest(modules) AS x(name)
  WHERE name <> 'translation' AND NOT (name = 'diarization' AND kind = 'pre-recorded')
  UNION ALL
  SELECT id, 'transcription.sentences', s
  FROM _tsync_src, unnest(transcription.sentences) AS x(s)
), wrapped AS (
  SELECT job_id, module, value, json_type(value) = 'OBJECT' AS wrapper,
         tsync_wrapper(value) AS w
  FROM members
), fields AS (
  SELECT job_id, module, wrapper, w.success, w.is_empty, w.exec_time, w.error,
         CASE WHEN NOT wrapper THEN value
              WHEN module = 'named_entity_recognition' THEN w.entity
              ELSE w.results END AS results
  FROM wrapped
  UNION ALL
  SELECT id, 'translation', true, translation.success, translation.is_empty, translation.exec_time,
         translation.error, translation.results
  FROM _tsync_src WHERE list_contains(modules, 'translation')
  UNION ALL
  SELECT id, 'diarization', true, diarization.success, diarization.is_empty, diarization.exec_time,
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
       results
FROM typed;

-- What was written, kept past the drops that follow: nothing of the batch stays staged.
SET VARIABLE tsync_utterances = (SELECT count(*) FROM _tsync_utterances);
SET VARIABLE tsync_words = (SELECT coalesce(sum(len(u.words)), 0) FROM _tsync_utterances);
DROP TABLE _tsync_utterances;
DROP TABLE _tsync_src;
DROP TABLE _tsync_batch;
SELECT getvariable('tsync_utterances') AS utterances, getvariable('tsync_words') AS words;
