-- Per kind that has runs, for the published manifest: its last successful sync (window_before of
-- its newest ok run: every job created before it is in the data; NULL: never) and how its newest
-- finished run ended, with that run's error. Instants as ISO 8601 UTC text.
WITH finished AS (
  SELECT kind, outcome, error,
         row_number() OVER (PARTITION BY kind ORDER BY started_at DESC) AS n
  FROM sync_runs WHERE outcome <> 'running'
),
ok AS (SELECT kind, max(window_before) AS as_of FROM sync_runs WHERE outcome = 'ok' GROUP BY kind)
SELECT f.kind,
       strftime(ok.as_of AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%S.%gZ') AS as_of,
       f.outcome AS last_outcome,
       f.error AS last_error
FROM finished AS f LEFT JOIN ok ON ok.kind = f.kind
WHERE f.n = 1
ORDER BY f.kind
