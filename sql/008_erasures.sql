-- Erasure on request (`transcript-sync erase`, `--on-delete erase`): an erased job keeps the facts
-- its bill is made of and loses everything else that can hold personal data
-- (src/store/erase.ts, docs/decisions/0021-erasure-keeps-billing-facts.md).
--
-- jobs.erased_at: when the job's content was erased; NULL for a job that holds it. An erased job
-- has no job_records row and no utterances, words or module_results; its content_hash stays, so an
-- unchanged record upstream writes nothing, and a changed one updates its billing facts only.
ALTER TABLE jobs ADD COLUMN erased_at TIMESTAMPTZ;

-- One row per erasure: when, by which kind of selector, how many jobs. Never the ids or the values
-- selected by (a customer's name, an email): those may be the personal data erased.
CREATE TABLE erasures (
  erased_at    TIMESTAMPTZ NOT NULL,  -- when the erasure committed
  selector     VARCHAR NOT NULL,      -- 'job' | 'metadata' | 'before', joined by '+' when combined; 'deleted-upstream'
  jobs         INTEGER NOT NULL,      -- jobs erased
  rewritten_at TIMESTAMPTZ            -- when the file was rewritten without the erased bytes; NULL: not yet
);
