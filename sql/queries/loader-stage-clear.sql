DELETE FROM _tsync_words;
DELETE FROM _tsync_lists;
DELETE FROM _tsync_dict;
