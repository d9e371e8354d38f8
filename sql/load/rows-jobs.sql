-- The rows of `jobs` of the parsed batch (parse.sql), in the table's columns. The record's text as
-- received goes to `job_records` (rows-job-records.sql). A new row is neither deleted, expired nor
-- erased.
-- Returns the columns of `jobs`, in the table's order (appended as they come).
SELECT id, kind, status, version, request_id, created_at, completed_at, error_code,
       custom_metadata, post_session_metadata, request_params,
       file.id, file.filename, file.source, file.audio_duration, file.number_of_channels,
       metadata.audio_duration, metadata.billing_time, metadata.transcription_time,
       metadata.number_of_distinct_channels, transcription.full_transcript, transcription.languages,
       content_hash, synced_at, NULL::TIMESTAMPTZ, NULL::TIMESTAMPTZ, NULL::TIMESTAMPTZ
FROM _tsync_src;
