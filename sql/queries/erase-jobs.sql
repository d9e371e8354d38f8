-- The jobs of _tsync_erase not erased yet keep their billing facts (id, kind, status, version,
-- created_at, completed_at, error_code, durations, billing_time, channels, languages, the model of
-- request_params, content_hash, deleted_at) and lose the rest: request_id, file id, name and
-- source (the audio's URL), the transcript, post_session_metadata, the other request parameters,
-- and every key of custom_metadata but those of $keep (VARCHAR[] or NULL for none,
-- `--erase-keep-metadata`).
-- erased_at and synced_at become $now: synced_at moves the job's partition fingerprint, so the next
-- publish rewrites it (publish-fingerprints.sql). Returns the jobs erased (`Count`).
UPDATE jobs SET
  request_id = NULL,
  custom_metadata = nullif(to_json(map_from_entries(list_filter(
      list_transform($keep::VARCHAR[], k -> {'key': k, 'value': json_extract(custom_metadata, json_pointer_step(k))}),
      e -> e.value IS NOT NULL))), '{}'),
  post_session_metadata = NULL,
  request_params = CASE WHEN request_params ->> 'model' IS NOT NULL
                        THEN json_object('model', request_params ->> 'model') END,
  file_id = NULL,
  filename = NULL,
  file_source = NULL,
  full_transcript = NULL,
  erased_at = $now::TIMESTAMPTZ,
  synced_at = $now::TIMESTAMPTZ
FROM _tsync_erase e
WHERE jobs.id = e.id AND NOT e.erased
