-- sync_runs.mode: 'incremental' | 'recent' | 'full'. A reconcile of the recent window (`sync --full
-- --window`, the worker's recent reconcile) is 'recent' and has a window_after; 'full' walks the
-- whole history (window_after NULL). Rows written before this migration said 'full' for both: their
-- window_after tells them apart.
UPDATE sync_runs SET mode = 'recent' WHERE mode = 'full' AND window_after IS NOT NULL;
