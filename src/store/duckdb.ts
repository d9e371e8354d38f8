/**
 * @duckdb/node-api, loaded at its first use, never by an import: a command that opens no file loads no
 * DuckDB, and its allocator reads its settings (src/cli/main.ts) as it loads. With `require`: as an ES
 * module, each file the CommonJS package re-exports would be scanned for export names
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
