-- billing_daily for the published dataset, with the partition column month ('YYYY-MM' of day).
SELECT b.*, left(CAST(b.day AS VARCHAR), 7) AS month
FROM billing_daily AS b
