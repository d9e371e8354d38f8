-- What the jobs of _tsync_erase (erase-select.sql) are, per kind: how many an erasure would erase,
-- a few of their ids (the first $shown by id; a quarantined record without one is counted, not
-- shown), and how many were erased already.
SELECT kind,
       (count(*) FILTER (WHERE NOT erased))::INTEGER AS jobs,
       (count(*) FILTER (WHERE erased))::INTEGER     AS already,
       list_sort(list(id) FILTER (WHERE NOT erased AND id IS NOT NULL))[1:$shown::INTEGER] AS ids
FROM _tsync_erase
GROUP BY kind
ORDER BY kind
