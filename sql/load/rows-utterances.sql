-- The rows of `utterances` of the parsed batch (parse.sql), in the table's columns.
-- Returns the columns of `utterances`, in the table's order (appended as they come).
SELECT job_id, source, utterance_idx, u.start, u."end", u.confidence, u.channel, u.speaker, u.language, u.text,
       job_created_at
FROM _tsync_utterances;
