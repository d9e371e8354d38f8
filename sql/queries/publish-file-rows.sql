-- The rows of each Parquet file of $files (absolute paths), from the files' footers: a publish
-- reads back what it wrote, one statement for all the partitions of a table.
SELECT file_name AS file, num_rows::BIGINT AS rows
FROM parquet_file_metadata($files::VARCHAR[])
