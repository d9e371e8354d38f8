-- The jobs in _tsync_broken, with their records and every row of their children: a `sync --full`
-- loads them again. An erased job keeps one of its erased rows (the first stored) and loses every
-- other row of its id: a job dropped would be loaded again whole, undoing its erasure
-- (docs/guarantees.md#erasure); its erased row keeps its billing facts and content_hash.
DELETE FROM words WHERE job_id IN (SELECT id FROM _tsync_broken);
DELETE FROM utterances WHERE job_id IN (SELECT id FROM _tsync_broken);
DELETE FROM module_results WHERE job_id IN (SELECT id FROM _tsync_broken);
DELETE FROM job_records WHERE job_id IN (SELECT id FROM _tsync_broken);
DELETE FROM jobs WHERE id IN (SELECT id FROM _tsync_broken)
  AND rowid NOT IN (
    SELECT min(rowid) FROM jobs
    WHERE erased_at IS NOT NULL AND id IN (SELECT id FROM _tsync_broken WHERE erased)
    GROUP BY id
  );
