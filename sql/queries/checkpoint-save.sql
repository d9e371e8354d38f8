-- The kind's checkpoint replaced; no row back when the kind has none yet (sql/queries/checkpoint-add.sql
-- then adds it). An update costs DuckDB a fraction of an INSERT ... ON CONFLICT.
UPDATE checkpoints SET state = $state::JSON, updated_at = now() WHERE kind = $kind
RETURNING kind
