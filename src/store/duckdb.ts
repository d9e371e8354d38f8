/**
 * @duckdb/node-api, loaded at its first use, never by an import: a command that opens no file
 * (`--help`, `config show`) loads no DuckDB, and DuckDB's allocator reads its settings
 * (src/cli/main.ts) only as the package loads. Loaded with `require`: imported as an ES module, the
 * CommonJS package would first have each re-exported file scanned for export names
 * (docs/decisions/0008-duckdb-parses-the-pages-javascript-keeps-the-walk.md).
 */
import { createRequire } from 'node:module';
import type * as Api from '@duckdb/node-api';

export type DuckDBApi = typeof Api;

let api: DuckDBApi | undefined;

/** The package's values (classes, enums, value constructors); the first call loads it. */
export function duckdb(): DuckDBApi {
  api ??= createRequire(import.meta.url)('@duckdb/node-api') as DuckDBApi;
  return api;
}
