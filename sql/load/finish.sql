-- The end of a batch on the writer's connection: nothing of it stays staged.
DELETE FROM _tsync_keys;
