-- Runs recorded twice for a kind (sync_runs has no key: one row per random run id and kind).
SELECT run_id || '/' || kind AS id FROM sync_runs GROUP BY run_id, kind HAVING count(*) > 1
