-- Erasure of a job `jobs` does not hold, known only by records that failed validation
-- (docs/decisions/0021-erasure-keeps-billing-facts.md): its `quarantine` rows are deleted and one
-- row here keeps the quarantine upsert (sql/queries/quarantine-upsert.sql) from storing any record
-- of it again. No content: the job's id, or for a record without a readable id the record's hash
-- (sha1 of its text, as jobs.content_hash stays for an erased job), its kind, and when.
CREATE TABLE erased_quarantine (
  job_id    VARCHAR,               -- the job's id; NULL when its record had no readable one
  raw_hash  VARCHAR,               -- the record's quarantine.raw_hash, when job_id is NULL
  kind      VARCHAR NOT NULL,      -- 'pre-recorded', 'live', or 'unknown' (a kind neither, or none)
  erased_at TIMESTAMPTZ NOT NULL   -- when the erasure committed
);
