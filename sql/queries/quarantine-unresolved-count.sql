-- Whether loaded jobs could resolve anything (see src/load/loader.ts).
SELECT count(*)::INTEGER AS n FROM quarantine WHERE resolved_at IS NULL
