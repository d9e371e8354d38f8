UPDATE sync_runs SET
  window_after = $window_after::TIMESTAMPTZ,
  pages = $pages, requests = $requests, retries = $retries, jobs_fetched = $jobs_fetched,
  inserted = $inserted, updated = $updated, unchanged = $unchanged, quarantined = $quarantined,
  deleted = $deleted, expired = $expired, restored = $restored,
  finished_at = $finished_at::TIMESTAMPTZ, outcome = $outcome, error = $error
WHERE run_id = $run_id AND kind = $kind
