-- Rows per table, to compare a file with its compacted copy (src/store/file/rewrite-file.ts).
SELECT 'jobs' AS t, count(*) AS n FROM jobs
UNION ALL SELECT 'job_records', count(*) FROM job_records
UNION ALL SELECT 'utterances', count(*) FROM utterances
UNION ALL SELECT 'words', count(*) FROM words
UNION ALL SELECT 'module_results', count(*) FROM module_results
UNION ALL SELECT 'quarantine', count(*) FROM quarantine
UNION ALL SELECT 'sync_runs', count(*) FROM sync_runs
UNION ALL SELECT 'checkpoints', count(*) FROM checkpoints
UNION ALL SELECT 'erasures', count(*) FROM erasures
UNION ALL SELECT 'erased_quarantine', count(*) FROM erased_quarantine
UNION ALL SELECT 'schema_migrations', count(*) FROM schema_migrations
ORDER BY t
