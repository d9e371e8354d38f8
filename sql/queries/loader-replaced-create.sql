-- Ids of stored jobs whose record changed: their rows and all their children are replaced whole.
CREATE OR REPLACE TEMP TABLE _replaced_ids AS SELECT unnest($ids::VARCHAR[]) AS id
