-- Jobs with a word stored twice on its natural key (job_id, source, utterance_idx, word_idx).
-- Grouping every word by that key outgrows a reader's memory at a large history, so words are
-- grouped by a compact key first: the hash of their utterance's key, shifted right by $key_shift
-- bits (0 in use: the whole 64-bit hash), and word_idx >> 6, each group keeping a 64-bit mask of
-- word_idx & 63 ((word_idx >> 6, word_idx & 63) is word_idx, negative ones too). A group with fewer
-- bits set than rows holds a duplicate, or the words of utterances whose hashes collide; only the
-- words of those utterances are grouped again by their natural key, so only true duplicates are
-- named. A thread folds an utterance's words, stored together, into one row as it reads them.
WITH suspects AS (
  SELECT hash(job_id, source, utterance_idx) >> $key_shift::UBIGINT AS utterance_key
  FROM words
  GROUP BY utterance_key, word_idx >> 6
  HAVING bit_count(bit_or(1::UBIGINT << (word_idx & 63)::UBIGINT)) < count(*)
)
SELECT DISTINCT job_id AS id FROM words
WHERE hash(job_id, source, utterance_idx) >> $key_shift::UBIGINT IN (SELECT utterance_key FROM suspects)
GROUP BY job_id, source, utterance_idx, word_idx >> 6
HAVING bit_count(bit_or(1::UBIGINT << (word_idx & 63)::UBIGINT)) < count(*)
