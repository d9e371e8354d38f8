-- Tombstones of jobs `jobs` now holds erased: the row's erased_at keeps their content out from now on.
DELETE FROM erased_quarantine
WHERE job_id IN (SELECT id FROM jobs WHERE erased_at IS NOT NULL)
