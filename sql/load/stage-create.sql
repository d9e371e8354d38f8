-- What the writer's connection keeps (temp: this connection's), made once when a writer opens the
-- file: the keys of the batch being loaded, compared with the stored jobs by classify.sql. The
-- records' texts are parsed on the staging connection (parse-create.sql), not here: whatever a
-- transaction stages is held until it commits (a dropped or emptied table's rows included), so the
-- writer's transaction holds only these keys and the rows it adds.
CREATE TEMP TABLE IF NOT EXISTS _tsync_keys (
  id           VARCHAR NOT NULL,
  content_hash VARCHAR NOT NULL,
  synced_at    TIMESTAMPTZ NOT NULL
);
