-- Jobs with an utterance stored twice on its natural key.
SELECT DISTINCT job_id AS id FROM utterances
GROUP BY job_id, source, utterance_idx HAVING count(*) > 1
