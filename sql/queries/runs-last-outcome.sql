-- Per kind, how its newest finished run ended (ok or failed), for --notify's first comparison.
SELECT kind, outcome FROM (
  SELECT kind, outcome, row_number() OVER (PARTITION BY kind ORDER BY started_at DESC) AS n
  FROM sync_runs WHERE outcome IN ('ok', 'failed')
) WHERE n = 1
