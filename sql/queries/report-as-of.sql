-- The last successful sync of each kind: window_before of its newest run with outcome ok. Every
-- job created before that instant was in the mirror when the run committed.
SELECT kind, max(window_before) AS as_of
FROM sync_runs
WHERE outcome = 'ok'
GROUP BY kind
