-- The loader's staging table (temp: this connection's), made once when a writer opens the file.
-- Each batch's records are appended here as received, then mapped into the tables by load-insert.sql
-- and the table is emptied. `doc` is the text DuckDB maps when it must differ from `raw` (a record
-- whose text DuckDB would read otherwise than JSON.parse: src/extract/json-scan.ts `plain`).
CREATE TEMP TABLE IF NOT EXISTS _tsync_items (
  id           VARCHAR NOT NULL,
  content_hash VARCHAR NOT NULL,
  raw          JSON NOT NULL,
  doc          JSON,
  modules      VARCHAR[] NOT NULL,  -- names of the feature results in `result` (page-records.ts)
  synced_at    TIMESTAMPTZ NOT NULL
);
