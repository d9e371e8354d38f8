-- A batch's words, staged for loader-stage-move-words (see src/normalize/job-rows.ts): `list` numbers
-- the batch's utterance lists, which _tsync_lists maps to their job and source; `word_key` numbers
-- the batch's distinct words, which _tsync_dict maps to their text. Temp tables live as long as
-- the connection: Database.open makes them once; loader-stage-move-words empties them after each batch.
CREATE TEMP TABLE IF NOT EXISTS _tsync_lists (list INTEGER, job_id VARCHAR, source VARCHAR);
CREATE TEMP TABLE IF NOT EXISTS _tsync_dict (word_key INTEGER, word VARCHAR);
CREATE TEMP TABLE IF NOT EXISTS _tsync_words (
  list INTEGER, utterance_idx INTEGER, word_idx INTEGER, word_key INTEGER, start DOUBLE, "end" DOUBLE, confidence DOUBLE
);
