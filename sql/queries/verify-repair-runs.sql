-- One row per (run_id, kind): the first one stored stays.
DELETE FROM sync_runs WHERE rowid NOT IN (SELECT min(rowid) FROM sync_runs GROUP BY run_id, kind)
