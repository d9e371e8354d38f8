-- The jobs in _tsync_broken, with their records and every row of their children: a `sync --full` loads them again.
DELETE FROM words WHERE job_id IN (SELECT id FROM _tsync_broken);
DELETE FROM utterances WHERE job_id IN (SELECT id FROM _tsync_broken);
DELETE FROM module_results WHERE job_id IN (SELECT id FROM _tsync_broken);
DELETE FROM job_records WHERE job_id IN (SELECT id FROM _tsync_broken);
DELETE FROM jobs WHERE id IN (SELECT id FROM _tsync_broken);
