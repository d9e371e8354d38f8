-- Erasures whose bytes may still be in the file: committed, the file not rewritten since.
SELECT count(*)::INTEGER AS n FROM erasures WHERE rewritten_at IS NULL
