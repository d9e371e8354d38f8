-- Stored jobs whose record changed: their row and all their children go, the loader writes
-- them anew in the same transaction.
CREATE OR REPLACE TEMP TABLE _tsync_replaced AS
SELECT k.id FROM _tsync_keys k JOIN jobs j USING (id) WHERE j.content_hash <> k.content_hash;
DELETE FROM jobs WHERE id IN (SELECT id FROM _tsync_replaced);
DELETE FROM utterances WHERE job_id IN (SELECT id FROM _tsync_replaced);
DELETE FROM words WHERE job_id IN (SELECT id FROM _tsync_replaced);
DELETE FROM module_results WHERE job_id IN (SELECT id FROM _tsync_replaced);
