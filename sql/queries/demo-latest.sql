SELECT kind, id, status, strftime(created_at AT TIME ZONE 'UTC', '%Y-%m-%d %H:%M:%S') AS created_utc,
       round(billing_time / 60, 1)::DOUBLE AS billed_minutes, left(coalesce(full_transcript, ''), 48) AS transcript
FROM (
  SELECT *, row_number() OVER (PARTITION BY kind ORDER BY created_at DESC) AS n
  FROM jobs WHERE deleted_at IS NULL
) WHERE n <= 3 ORDER BY kind DESC, created_at DESC
