-- The last successful sync of each kind: window_before of its newest run with outcome ok. Every
-- job created before that instant and at or after synced_from was in the mirror when the run
-- committed. synced_from: the lowest window_after of the kind's ok runs (a first sync --since starts
-- there; later runs continue from their watermark), NULL when one of them had no lower bound.
SELECT kind,
       max(window_before) AS as_of,
       CASE WHEN bool_or(window_after IS NULL) THEN NULL ELSE min(window_after) END AS synced_from
FROM sync_runs
WHERE outcome = 'ok'
GROUP BY kind
