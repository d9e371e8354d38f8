-- The staged words of a batch into `words`: job and source from their utterance list, the text from
-- the batch's dictionary (a word without text has no key). Then the staging tables are emptied for
-- the next batch. One text, so one trip to DuckDB's threads (src/store/database.ts says why trips count).
INSERT INTO words (job_id, source, utterance_idx, word_idx, word, start, "end", confidence)
SELECT l.job_id, l.source, w.utterance_idx, w.word_idx, d.word, w.start, w."end", w.confidence
FROM _tsync_words w
JOIN _tsync_lists l USING (list)
LEFT JOIN _tsync_dict d USING (word_key);
DELETE FROM _tsync_words;
DELETE FROM _tsync_lists;
DELETE FROM _tsync_dict;
