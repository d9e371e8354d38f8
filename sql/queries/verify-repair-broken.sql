-- The jobs verify --repair drops (then `sync --full` loads them again), and whether each is erased:
-- an erased job is repaired, never dropped (verify-repair-drop-jobs.sql).
CREATE OR REPLACE TEMP TABLE _tsync_broken AS
SELECT b.id, EXISTS (SELECT 1 FROM jobs j WHERE j.id = b.id AND j.erased_at IS NOT NULL) AS erased
FROM (SELECT DISTINCT unnest($ids::VARCHAR[]) AS id) b
