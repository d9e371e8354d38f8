SELECT state::VARCHAR AS state FROM checkpoints WHERE kind = $kind
