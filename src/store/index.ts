/**
 * The store's contract: what another folder of src/ may use of the DuckDB file
 * (.dependency-cruiser.cjs lets no module outside src/store import past this file). Its own
 * modules import each other directly.
 */
export * from './database.js';
export * from './duckdb.js';
export * from './erase.js';
export { damagedFileError } from './file/open-instance.js';
export * from './file/rewrite-file.js';
export * from './file/writer-lock.js';
export * from './open-file.js';
export * from './statements/checkpoints.js';
export * from './statements/datasets.js';
export * from './statements/demo.js';
export * from './statements/freshness.js';
export * from './statements/jobs.js';
export * from './statements/loader.js';
export * from './statements/parquet-copy.js';
export * from './statements/publish.js';
export * from './statements/quarantine.js';
export * from './statements/reports.js';
export * from './statements/runs.js';
export * from './statements/seen.js';
export * from './statements/status.js';
export * from './values.js';
export * from './verify.js';
