-- How many jobs of _tsync_broken are erased: verify-repair-drop-jobs.sql keeps them, so they are
-- not among the jobs `sync --full` loads again.
SELECT count(*) FILTER (WHERE erased) AS n FROM _tsync_broken
