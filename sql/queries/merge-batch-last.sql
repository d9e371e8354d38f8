-- The highest batch of merge-small-row-groups.sql (-1: nothing to move), job_records aside.
SELECT coalesce(max(b), -1)::INTEGER AS last FROM _tsync_small_groups WHERE t <> 'job_records'
