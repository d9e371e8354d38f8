-- Ids seen by a --full walk, to find the jobs the service no longer lists.
CREATE OR REPLACE TEMP TABLE seen_ids (id VARCHAR)
