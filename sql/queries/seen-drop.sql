-- The end of a --full walk: its seen ids go with it (an interrupted walk's go at the next one's start).
DROP TABLE IF EXISTS seen_ids
