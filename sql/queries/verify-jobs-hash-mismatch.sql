-- Jobs whose `raw` is no longer the text that was hashed on arrival (content_hash = sha1 of raw).
SELECT id FROM jobs WHERE content_hash <> sha1(raw::VARCHAR)
