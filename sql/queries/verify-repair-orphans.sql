-- Records and child rows of no stored job or utterance.
DELETE FROM job_records WHERE job_id NOT IN (SELECT id FROM jobs);
DELETE FROM utterances WHERE job_id NOT IN (SELECT id FROM jobs);
DELETE FROM module_results WHERE job_id NOT IN (SELECT id FROM jobs);
DELETE FROM words w WHERE NOT EXISTS (
  SELECT 1 FROM utterances u
  WHERE u.job_id = w.job_id AND u.source = w.source AND u.utterance_idx = w.utterance_idx
);
