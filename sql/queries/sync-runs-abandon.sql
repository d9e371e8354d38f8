-- The runs left 'running' by a writer that no longer writes (killed, or it could not record how
-- they ended): the writer now holding the file's lock closes every running row of another run as
-- 'abandoned', ended $finished_at. Returns the rows closed.
UPDATE sync_runs SET outcome = 'abandoned', finished_at = $finished_at::TIMESTAMPTZ, error = $error
WHERE outcome = 'running' AND run_id <> $run_id
RETURNING run_id, kind
