SELECT kind, status, count(*)::INTEGER AS jobs
FROM jobs WHERE deleted_at IS NULL
GROUP BY kind, status ORDER BY kind DESC, jobs DESC
