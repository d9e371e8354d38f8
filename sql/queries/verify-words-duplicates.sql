-- Jobs with a word stored twice on its natural key, among the jobs of one part of $parts (by the
-- hash of job_id): a grouping of every word at once outgrows a reader's memory at a large history.
SELECT DISTINCT job_id AS id FROM words
WHERE hash(job_id) % $parts = $part
GROUP BY job_id, source, utterance_idx, word_idx HAVING count(*) > 1
