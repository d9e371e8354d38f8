-- Ids seen by a --full walk, to find the jobs the service no longer lists. A table of the file, not
-- a temp table: it outlives the writer opening its file again during the walk, and holds no
-- memory once committed. Empty at the walk's start; seen-drop removes it at the walk's end.
CREATE OR REPLACE TABLE seen_ids (id VARCHAR)
