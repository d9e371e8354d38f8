-- Sync runs the file has recorded (src/load/file/merge-row-groups.ts counts small row groups every
-- COUNT_EVERY_RUNS of them).
SELECT count(DISTINCT run_id)::INTEGER AS n FROM sync_runs
