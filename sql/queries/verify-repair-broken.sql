-- The jobs verify --repair drops (then `sync --full` loads them again).
CREATE OR REPLACE TEMP TABLE _tsync_broken AS SELECT DISTINCT unnest($ids::VARCHAR[]) AS id
