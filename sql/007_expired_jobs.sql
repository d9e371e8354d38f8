-- Jobs the service no longer lists because they aged past the account's data retention
-- (`--service-retention`) are expired, not deleted: `expired_at` is set and `deleted_at` stays NULL,
-- so they stay in every view, report, export and published dataset. A job listed again clears it.
-- sync_runs.expired: how many jobs a --full run marked expired.
ALTER TABLE jobs ADD COLUMN expired_at TIMESTAMPTZ;
ALTER TABLE sync_runs ADD COLUMN expired INTEGER DEFAULT 0;
