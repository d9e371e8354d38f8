-- The rows merge-batch-pick.sql picked, in the caller's transaction: each table's appended again
-- (into a row group of their own at the commit), then deleted where they were. A row group whose
-- rows are all deleted is dropped at the next checkpoint and no other is touched, so a merge
-- writes the small groups' rows and nothing else.
INSERT INTO jobs SELECT * FROM jobs WHERE rowid IN (SELECT row_id FROM _tsync_move WHERE t = 'jobs');
DELETE FROM jobs WHERE rowid IN (SELECT row_id FROM _tsync_move WHERE t = 'jobs');
INSERT INTO utterances SELECT * FROM utterances WHERE rowid IN (SELECT row_id FROM _tsync_move WHERE t = 'utterances');
DELETE FROM utterances WHERE rowid IN (SELECT row_id FROM _tsync_move WHERE t = 'utterances');
INSERT INTO words SELECT * FROM words WHERE rowid IN (SELECT row_id FROM _tsync_move WHERE t = 'words');
DELETE FROM words WHERE rowid IN (SELECT row_id FROM _tsync_move WHERE t = 'words');
INSERT INTO module_results SELECT * FROM module_results WHERE rowid IN (SELECT row_id FROM _tsync_move WHERE t = 'module_results');
DELETE FROM module_results WHERE rowid IN (SELECT row_id FROM _tsync_move WHERE t = 'module_results');
INSERT INTO sync_runs SELECT * FROM sync_runs WHERE rowid IN (SELECT row_id FROM _tsync_move WHERE t = 'sync_runs');
DELETE FROM sync_runs WHERE rowid IN (SELECT row_id FROM _tsync_move WHERE t = 'sync_runs');
