-- Words of no stored utterance (by job_id, source, utterance_idx).
SELECT DISTINCT w.job_id AS id FROM words w
ANTI JOIN utterances u ON u.job_id = w.job_id AND u.source = w.source AND u.utterance_idx = w.utterance_idx
