-- Jobs with words of no stored utterance (by job_id, source, utterance_idx). The utterances and
-- the words are grouped together by (job_id, source, utterance_idx >> 6), each side keeping a
-- 64-bit mask of utterance_idx & 63 ((utterance_idx >> 6, utterance_idx & 63) is utterance_idx,
-- negative ones too): a bit in the words' mask and not in the utterances' is a word of no
-- utterance. The groups are about as many as the lists of utterances; a join of every word to
-- its utterance would hold or spill every utterance's key.
SELECT DISTINCT job_id AS id FROM (
  SELECT job_id, source, utterance_idx, false AS is_word FROM utterances
  UNION ALL
  SELECT job_id, source, utterance_idx, true FROM words
)
GROUP BY job_id, source, utterance_idx >> 6
HAVING bit_or(1::UBIGINT << (utterance_idx & 63)::UBIGINT) FILTER (WHERE is_word)
  & ~coalesce(bit_or(1::UBIGINT << (utterance_idx & 63)::UBIGINT) FILTER (WHERE NOT is_word), 0::UBIGINT)
  <> 0::UBIGINT
