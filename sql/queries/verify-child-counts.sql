-- Rows of the tables whose duplicate checks group every row: they run in parts of bounded size.
SELECT (SELECT count(*) FROM utterances) AS utterances, (SELECT count(*) FROM words) AS words
