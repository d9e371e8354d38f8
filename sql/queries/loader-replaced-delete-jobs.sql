DELETE FROM jobs WHERE id IN (SELECT id FROM _replaced_ids)
