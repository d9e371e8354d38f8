-- The errors of a still-failing record, as this version reports them.
UPDATE quarantine SET errors = $errors::JSON WHERE raw_hash = $raw_hash
