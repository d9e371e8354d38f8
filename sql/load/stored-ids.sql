-- Every stored job's id, as the writer's transaction sees them, read a chunk at a time into the
-- Bloom filter of src/load/stored-ids.ts.
-- Returns one column: id, a row per stored job, in no order.
SELECT id FROM jobs
