-- The jobs an erasure selects (src/store/erase.ts), into _tsync_erase (id, kind, created_at, whether
-- already erased, and for a job known only by the quarantine: quarantine_only, and raw_hash when its
-- record has no readable id, which then stands for one job). Every selector given must match; a
-- NULL parameter selects every job:
--   $ids       VARCHAR[]  the job's id is one of them (`erase --job`)
--   $key       text       with $value: custom_metadata's value for $key, as text, is $value (`--metadata`)
--   $before    instant    created_at < $before (`--before`; a reconcile's walked range)
--   $after     instant    created_at >= $after (a reconcile's walked range)
--   $kind      text       jobs of that kind
--   $deleted   boolean    true: only jobs marked deleted (a reconcile with --on-delete erase)
-- A job `jobs` does not hold is selected by its unresolved or resolved quarantined records, any one
-- of which matching is enough: custom_metadata and created_at read from `raw`, a record where they
-- cannot be read matching no --metadata or --before; never marked deleted. Once erased, it is
-- selected as erased already by $ids and $kind only (erased_quarantine keeps no content).
CREATE OR REPLACE TEMP TABLE _tsync_erase AS
SELECT id, kind, created_at, erased_at IS NOT NULL AS erased, false AS quarantine_only, NULL::VARCHAR AS raw_hash
FROM jobs
WHERE ($ids::VARCHAR[] IS NULL OR list_contains($ids::VARCHAR[], id))
  AND ($key::VARCHAR IS NULL
       OR json_extract_string(custom_metadata, json_pointer_step($key::VARCHAR)) = $value::VARCHAR)
  AND ($before::TIMESTAMPTZ IS NULL OR created_at < $before::TIMESTAMPTZ)
  AND ($after::TIMESTAMPTZ IS NULL OR created_at >= $after::TIMESTAMPTZ)
  AND ($kind::VARCHAR IS NULL OR kind = $kind::VARCHAR)
  AND (NOT $deleted::BOOLEAN OR deleted_at IS NOT NULL)
UNION ALL
SELECT job_id, CASE WHEN any_value(kind) IN ('pre-recorded', 'live') THEN any_value(kind) ELSE 'unknown' END,
       min(created_at), false, true, raw_hash
FROM (
  SELECT q.job_id, q.kind, TRY_CAST(q.raw ->> 'created_at' AS TIMESTAMPTZ) AS created_at,
         CASE WHEN q.job_id IS NULL THEN q.raw_hash END AS raw_hash,
         json_extract_string(q.raw -> 'custom_metadata', json_pointer_step($key::VARCHAR)) AS metadata_value
  FROM quarantine q
  WHERE NOT EXISTS (SELECT 1 FROM jobs WHERE jobs.id = q.job_id)
) AS q
WHERE ($ids::VARCHAR[] IS NULL OR list_contains($ids::VARCHAR[], job_id))
  AND ($key::VARCHAR IS NULL OR metadata_value = $value::VARCHAR)
  AND ($before::TIMESTAMPTZ IS NULL OR created_at < $before::TIMESTAMPTZ)
  AND ($after::TIMESTAMPTZ IS NULL OR created_at >= $after::TIMESTAMPTZ)
  AND ($kind::VARCHAR IS NULL OR kind = $kind::VARCHAR)
  AND NOT $deleted::BOOLEAN
GROUP BY job_id, raw_hash
UNION ALL
SELECT DISTINCT job_id, kind, NULL::TIMESTAMPTZ, true, true, NULL::VARCHAR
FROM erased_quarantine e
WHERE job_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM jobs WHERE jobs.id = e.job_id)
  AND ($ids::VARCHAR[] IS NULL OR list_contains($ids::VARCHAR[], job_id))
  AND $key::VARCHAR IS NULL AND $before::TIMESTAMPTZ IS NULL AND $after::TIMESTAMPTZ IS NULL
  AND ($kind::VARCHAR IS NULL OR kind = $kind::VARCHAR)
  AND NOT $deleted::BOOLEAN
