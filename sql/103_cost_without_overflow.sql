-- Money figures of any size (docs/decisions/0012-exact-billing-and-exact-json.md). Replaces
-- sql/101's cost_figure, whose DECIMAL(38) product of the whole price-seconds sum by 10^12
-- overflowed once the sum passed 10^14 (a price near its limit, or years of a currency of small
-- units), and whose DECIMAL(18, 2) result held less than a price file may ask for.
--
-- A sum of exact_seconds * price per hour (DECIMAL(18,6)) as money: / 3600, in cents, half up. The
-- sum has 12 decimals: its whole part and its fraction become integers of 10^-12 apart, in HUGEINT;
-- 1 cent is 36 * 10^12 of them.
CREATE OR REPLACE MACRO cost_figure(price_seconds_sum) AS
  CAST(
    CAST((CAST(trunc(price_seconds_sum) AS HUGEINT) * 1000000000000
          + CAST((price_seconds_sum - trunc(price_seconds_sum)) * 1000000000000 AS HUGEINT)
          + 18000000000000) // 36000000000000 AS DECIMAL(38, 0))
      * CAST(0.01 AS DECIMAL(3, 2))
    AS DECIMAL(38, 2));
