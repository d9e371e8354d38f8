-- The rows of `words` of the parsed batch (parse.sql), in the table's columns.
-- One unnest of each word list, its fields taken outside: faster than an unnest per field.
-- Returns the columns of `words`, in the table's order (appended as they come).
SELECT job_id, source, utterance_idx, word_idx, w.word, w.start, w."end", w.confidence, job_created_at
FROM (
  SELECT job_id, source, utterance_idx, generate_subscripts(u.words, 1) - 1 AS word_idx, unnest(u.words) AS w,
         job_created_at
  FROM _tsync_utterances
);
