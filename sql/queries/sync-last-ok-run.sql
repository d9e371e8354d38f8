-- The newest completed run of a kind: everything created before its window_before is committed.
SELECT window_before::VARCHAR AS window_before FROM sync_runs
WHERE kind = $kind AND outcome = 'ok'
ORDER BY window_before DESC LIMIT 1
