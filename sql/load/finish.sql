-- The end of a batch on the writer's connection: nothing of it stays staged.
DROP TABLE IF EXISTS _tsync_batch;
