-- Erased jobs (jobs.erased_at set) whose record changed upstream: the new record ($ids[i] with its
-- text $raws[i], bound) updates only the facts an erased job keeps (sql/008_erasures.sql): status,
-- times, durations, billing time, model, languages, error code. Its content is not loaded again:
-- no job_records row, no utterances, words or module_results, no transcript, file name or
-- metadata. The new content hash is kept, so the same record next time writes nothing; a job a
-- --full run had marked deleted or expired is listed again (the loader counts it restored).
-- Parameters (bound): $ids, $raws  VARCHAR[] of one length, each id with its record's JSON text.
-- Returns nothing.
UPDATE jobs SET
  status = r.doc ->> 'status',
  version = CAST(r.doc ->> 'version' AS INTEGER),
  completed_at = CAST(r.doc ->> 'completed_at' AS TIMESTAMPTZ),
  error_code = CAST(r.doc ->> 'error_code' AS INTEGER),
  file_audio_duration = CAST(r.doc -> 'file' ->> 'audio_duration' AS DOUBLE),
  number_of_channels = CAST(r.doc -> 'file' ->> 'number_of_channels' AS INTEGER),
  audio_duration = CAST(r.doc -> 'result' -> 'metadata' ->> 'audio_duration' AS DOUBLE),
  billing_time = CAST(r.doc -> 'result' -> 'metadata' ->> 'billing_time' AS DOUBLE),
  transcription_time = CAST(r.doc -> 'result' -> 'metadata' ->> 'transcription_time' AS DOUBLE),
  number_of_distinct_channels = CAST(r.doc -> 'result' -> 'metadata' ->> 'number_of_distinct_channels' AS INTEGER),
  languages = json_transform(r.doc -> 'result' -> 'transcription' -> 'languages', '["VARCHAR"]'),
  request_params = CASE WHEN r.doc -> 'request_params' ->> 'model' IS NOT NULL
                        THEN json_object('model', r.doc -> 'request_params' ->> 'model') END,
  content_hash = k.content_hash,
  synced_at = k.synced_at,
  deleted_at = NULL,
  expired_at = NULL
FROM (SELECT unnest($ids::VARCHAR[]) AS id, unnest($raws::VARCHAR[])::JSON AS doc) r
JOIN _tsync_keys k USING (id)
WHERE jobs.id = r.id AND jobs.erased_at IS NOT NULL;
