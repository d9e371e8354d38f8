-- billing_monthly for the published dataset (kind and month are its partition columns).
SELECT b.*
FROM billing_monthly AS b
