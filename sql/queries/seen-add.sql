INSERT INTO seen_ids SELECT unnest($ids::VARCHAR[])
