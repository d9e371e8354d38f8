INSERT INTO sync_runs (run_id, kind, mode, window_after, window_before, started_at, outcome)
VALUES ($run_id, $kind, $mode, $window_after::TIMESTAMPTZ, $window_before::TIMESTAMPTZ, $started_at::TIMESTAMPTZ, 'running')
