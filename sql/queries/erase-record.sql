-- One row of `erasures` for an erasure that erased $jobs jobs at $now, by $selector: no id, no value.
INSERT INTO erasures (erased_at, selector, jobs) VALUES ($now::TIMESTAMPTZ, $selector, $jobs)
