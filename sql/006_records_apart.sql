-- `jobs` loses its `raw` column, whose records are in `job_records` (sql/005_job_records.sql).
-- Before this file runs, the runner copies every stored record there
-- (src/store/migrate.ts): a batch of about 16 MiB of `raw` a transaction, each written
-- straight into the file as a row group of its own, as `compact` copies them, so that the copy
-- runs within the writer's memory and the file reads `raw` within the budget after it. Killed
-- during the copy, the next open empties job_records and copies again; this file then drops the
-- column in the runner's one transaction with its schema_migrations row.
ALTER TABLE jobs DROP COLUMN raw;
