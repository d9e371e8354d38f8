-- The sync runs the file has recorded, those that wrote rows into the history tables (a job
-- inserted or replaced: an append), and whether the latest one did (src/store/file/merge-row-groups.ts
-- decides from them which small row groups a close counts).
WITH runs AS (
  SELECT run_id, min(started_at) AS started_at, sum(inserted + updated) > 0 AS wrote
  FROM sync_runs GROUP BY run_id
)
SELECT count(*)::INTEGER AS runs,
       (count(*) FILTER (WHERE wrote))::INTEGER AS writing,
       coalesce(arg_max(wrote, started_at), false) AS latest_wrote
FROM runs
