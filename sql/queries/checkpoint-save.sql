INSERT INTO checkpoints (kind, state, updated_at) VALUES ($kind, $state::JSON, now())
ON CONFLICT (kind) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at
