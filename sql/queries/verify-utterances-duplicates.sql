-- Jobs with an utterance stored twice on its natural key, among the jobs of one part of $parts (by
-- the hash of job_id), as verify-words-duplicates.sql.
SELECT DISTINCT job_id AS id FROM utterances
WHERE hash(job_id) % $parts = $part
GROUP BY job_id, source, utterance_idx HAVING count(*) > 1
