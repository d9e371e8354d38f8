-- The staging connection between batches (run when a writer opens the file and after each batch):
-- nothing of a batch stays staged. _tsync_items is made anew rather than emptied: the rows a
-- DELETE removes from a temp table keep their memory (its storage is never checkpointed), a
-- replaced table's is freed.
--
-- Each batch's new and changed records are appended to _tsync_items as received, parsed into rows by
-- parse.sql and handed to the writer's transaction by the rows-*.sql queries. `doc` is the text
-- DuckDB maps when it must differ from `raw` (a record DuckDB would read otherwise than JSON.parse:
-- src/extract/json-scan.ts `plain`). `part` splits a batch in two halves of about the same bytes,
-- parsed on two threads.
DROP TABLE IF EXISTS _tsync_utterances;
DROP TABLE IF EXISTS _tsync_src;
CREATE OR REPLACE TEMP TABLE _tsync_items (
  id           VARCHAR NOT NULL,
  content_hash VARCHAR NOT NULL,
  raw          JSON NOT NULL,
  doc          JSON,
  modules      VARCHAR[] NOT NULL,  -- names of the feature results in `result` (page-records.ts)
  part         INTEGER NOT NULL,
  synced_at    TIMESTAMPTZ NOT NULL
);
