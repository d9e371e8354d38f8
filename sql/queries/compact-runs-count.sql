-- The rows of sync_runs (one per run and kind) and those of a kind that wrote rows into the
-- history tables (a job inserted or replaced: an append), and of each how many the latest run (by
-- its start) added: src/store/file/merge-row-groups.ts decides from them which small row groups a
-- close counts. Counts and one filter by run id, no grouping by run: cheap as the runs pile up.
WITH latest AS (
  SELECT count(*)::INTEGER AS latest_rows,
         (count(*) FILTER (WHERE inserted + updated > 0))::INTEGER AS latest_writing
  FROM sync_runs
  WHERE run_id = (SELECT arg_max(run_id, started_at) FROM sync_runs)
)
SELECT count(*)::INTEGER AS rows,
       (count(*) FILTER (WHERE inserted + updated > 0))::INTEGER AS writing,
       any_value(latest.latest_rows) AS latest_rows,
       any_value(latest.latest_writing) AS latest_writing
FROM sync_runs, latest
