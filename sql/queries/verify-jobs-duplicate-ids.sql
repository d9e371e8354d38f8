-- Ids stored more than once in `jobs` (no key enforces it: the loader replaces a job set-based).
SELECT id FROM jobs GROUP BY id HAVING count(*) > 1
