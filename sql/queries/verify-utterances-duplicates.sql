-- Jobs with an utterance stored twice on its natural key (job_id, source, utterance_idx). Grouped by
-- (job_id, source, utterance_idx >> 6), each group keeping a 64-bit mask of utterance_idx & 63
-- ((utterance_idx >> 6, utterance_idx & 63) is utterance_idx, negative ones too): a group with
-- fewer bits set than rows holds a duplicate. Up to 64 utterances of a list make one group, so
-- the groups are about as many as the lists, not the utterances.
SELECT DISTINCT job_id AS id FROM utterances
GROUP BY job_id, source, utterance_idx >> 6
HAVING bit_count(bit_or(1::UBIGINT << (utterance_idx & 63)::UBIGINT)) < count(*)
