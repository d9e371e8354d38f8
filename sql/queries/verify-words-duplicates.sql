-- Jobs with a word stored twice on its natural key.
SELECT DISTINCT job_id AS id FROM words
GROUP BY job_id, source, utterance_idx, word_idx HAVING count(*) > 1
