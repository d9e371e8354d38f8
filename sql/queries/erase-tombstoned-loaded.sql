-- Jobs erased while known only by the quarantine (erased_quarantine, by id) that a load has since
-- stored from a record that validates: their content is to be erased again in the same
-- transaction (src/store/erase.ts). Returns: id VARCHAR.
SELECT e.job_id AS id
FROM erased_quarantine e JOIN jobs j ON j.id = e.job_id
WHERE j.erased_at IS NULL
