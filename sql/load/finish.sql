-- The end of a batch: nothing of it stays staged (its texts would otherwise be held until the next).
DROP TABLE IF EXISTS _tsync_batch;
