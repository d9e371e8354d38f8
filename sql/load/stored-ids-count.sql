-- Jobs stored, as the writer's transaction sees them: what the Bloom filter of their ids is sized
-- for (src/load/stored-ids.ts).
-- Returns one row: n  BIGINT.
SELECT count(*)::BIGINT AS n FROM jobs
