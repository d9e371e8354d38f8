-- In the copy a rewrite makes (attached as tsync_compacted, src/store/file/rewrite-file.ts), before
-- it replaces the file: every erasure's bytes are gone from it.
UPDATE tsync_compacted.erasures SET rewritten_at = $now::TIMESTAMPTZ WHERE rewritten_at IS NULL
