-- The jobs an erasure selects (src/store/erase.ts), into _tsync_erase (id, kind, created_at, and
-- whether already erased). Every selector given must match; a NULL parameter selects every job:
--   $ids       VARCHAR[]  jobs.id is one of them (`erase --job`)
--   $key       text       with $value: custom_metadata's value for $key, as text, is $value (`--metadata`)
--   $before    instant    created_at < $before (`--before`; a reconcile's walked range)
--   $after     instant    created_at >= $after (a reconcile's walked range)
--   $kind      text       jobs of that kind
--   $deleted   boolean    true: only jobs marked deleted (a reconcile with --on-delete erase)
CREATE OR REPLACE TEMP TABLE _tsync_erase AS
SELECT id, kind, created_at, erased_at IS NOT NULL AS erased
FROM jobs
WHERE ($ids::VARCHAR[] IS NULL OR list_contains($ids::VARCHAR[], id))
  AND ($key::VARCHAR IS NULL
       OR json_extract_string(custom_metadata, json_pointer_step($key::VARCHAR)) = $value::VARCHAR)
  AND ($before::TIMESTAMPTZ IS NULL OR created_at < $before::TIMESTAMPTZ)
  AND ($after::TIMESTAMPTZ IS NULL OR created_at >= $after::TIMESTAMPTZ)
  AND ($kind::VARCHAR IS NULL OR kind = $kind::VARCHAR)
  AND (NOT $deleted::BOOLEAN OR deleted_at IS NOT NULL)
