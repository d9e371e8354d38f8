-- What is stored for the jobs of a batch: an identical hash means nothing to write.
SELECT id, content_hash, deleted_at IS NOT NULL AS deleted
FROM jobs
WHERE id IN (SELECT unnest($ids::VARCHAR[]))
