-- Every table but `job_records` appended whole, in stored order, to the copy `compact` writes
-- (attached as tsync_compacted, src/store/file/rewrite-file.ts; records go a run at a time,
-- compact-copy-records.sql). The tables are those compact-counts.sql compares;
-- test/unit/store/store-compact.test.ts checks that they are every table of the schema.
INSERT INTO tsync_compacted.jobs SELECT * FROM jobs;
INSERT INTO tsync_compacted.utterances SELECT * FROM utterances;
INSERT INTO tsync_compacted.words SELECT * FROM words;
INSERT INTO tsync_compacted.module_results SELECT * FROM module_results;
INSERT INTO tsync_compacted.quarantine SELECT * FROM quarantine;
INSERT INTO tsync_compacted.sync_runs SELECT * FROM sync_runs;
INSERT INTO tsync_compacted.checkpoints SELECT * FROM checkpoints;
INSERT INTO tsync_compacted.erasures SELECT * FROM erasures;
INSERT INTO tsync_compacted.erased_quarantine SELECT * FROM erased_quarantine;
INSERT INTO tsync_compacted.schema_migrations SELECT * FROM schema_migrations;
