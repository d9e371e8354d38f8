-- Jobs erased while known only by the quarantine, by id: none, and no load can store one of them.
SELECT count(*)::INTEGER AS n FROM erased_quarantine WHERE job_id IS NOT NULL
