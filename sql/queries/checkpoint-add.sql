-- The kind's first checkpoint (sql/queries/checkpoint-save.sql found no row to replace).
INSERT INTO checkpoints (kind, state, updated_at) VALUES ($kind, $state::JSON, now())
