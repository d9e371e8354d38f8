-- Every stored job's id, as the writer's transaction sees them, read a chunk at a time into the
-- Bloom filter of src/load/stored-ids.ts.
SELECT id FROM jobs
